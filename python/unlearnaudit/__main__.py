"""``python -m unlearnaudit ARGS``: the audit binary the package uses, run with ARGS
(``python -m unlearnaudit version`` prints its version)."""
import subprocess
import sys

from ._run import binary


def main() -> int:
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(f"unlearnaudit: {e}", file=sys.stderr)
        return 2
    return subprocess.call([exe, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
