"""Shared pytest set-up: the cross-implementation summary line."""

import pytest

from cuzarr_cli import cuzarr_binary


@pytest.fixture(scope="session", autouse=True)
def _cuzarr_binary_exists():
    cuzarr_binary()  # fails every test early, with the path, when the tool was not built


def pytest_terminal_summary(terminalreporter):
    def count(outcome):
        return sum(1 for report in terminalreporter.stats.get(outcome, [])
                   if getattr(report, "when", "call") == "call" and "cross_implementation" in report.keywords)

    passed, failed = count("passed"), count("failed")
    def count_any(outcome):
        return sum(1 for report in terminalreporter.stats.get(outcome, []) if "cross_implementation" in report.keywords)

    skipped, xfailed = count_any("skipped"), count_any("xfailed")
    extra = (f", {xfailed} expected failures (known issues)" if xfailed else "") + (
        f", {skipped} skipped" if skipped else "")
    terminalreporter.write_line(f"cross-implementation cases: {passed} passed, {failed} failed{extra}")
