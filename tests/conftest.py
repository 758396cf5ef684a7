import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def pytest_addoption(parser):
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="rewrite tests/fixtures/fixes/*.out.py from the current fixes",
    )


def pytest_terminal_summary(terminalreporter):
    counts = getattr(sys.modules.get("test_fuzz"), "COUNTS", None)
    for kind, count in sorted((counts or {}).items()):
        terminalreporter.write_line(f"fuzz: {count} {kind} checked")
    counts = getattr(sys.modules.get("test_real_code"), "COUNTS", None)
    for kind, count in sorted((counts or {}).items()):
        terminalreporter.write_line(f"real code: {kind}: {count}")
