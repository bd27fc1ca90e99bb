"""pycheck.py - the check() of the Python tests beside it: each check prints
ok/FAIL with what it checked and carries on; `failures` holds what failed,
and a test ends with sys.exit(1 if failures else 0)."""
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
