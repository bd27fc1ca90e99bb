#!/usr/bin/env python3
"""test_readme_names.py WHAT BUILD SRC - README.md names only what exists.

  variables  every HUGEPOLICY_* name in README.md is a variable of
             policy/options.c's option table, a macro or enum constant of
             include/hugepolicy.h, or a variable the CLI reads
             (integration/cli*.c) that hugepolicy(1)'s ENVIRONMENT
             documents; and every variable of the option table is a row of
             the README's variable table with the table's default
  options    every option of a hugepolicy command line in README.md (code
             blocks and `code spans`: the words after `hugepolicy`, `run`,
             `probe` or `tune` up to `--` or the first word that is neither an
             option nor its value) is in that command's --help output (the
             CLI in BUILD), and so is every code span that is one option
             in a paragraph that gives such a command line (other
             paragraphs may name other programs' options)
"""
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def option_table(src):
    """{variable: default} from the option table's rows"""
    text = open(os.path.join(src, "policy/options.c")).read()
    rows = dict(re.findall(r'"(HUGEPOLICY_[A-Z_]+)", "([^"]*)"', text))
    if not rows:
        fail("no option rows in policy/options.c")
    return rows


def cli_variables(src, table):
    """HUGEPOLICY_* names the CLI reads that the option table does not have"""
    found = set()
    folder = os.path.join(src, "integration")
    for name in os.listdir(folder):
        if name.startswith("cli") and name.endswith(".c"):
            found |= set(re.findall(r'"(HUGEPOLICY_[A-Z_]+)"', open(os.path.join(folder, name)).read()))
    return found - set(table)


def man1_environment(build):
    """the text of hugepolicy(1)'s ENVIRONMENT section (roff)"""
    roff = open(os.path.join(build, "man/hugepolicy.1")).read()
    m = re.search(r"^\.SH ENVIRONMENT\n(.*?)(^\.SH |\Z)", roff, re.M | re.S)
    if not m:
        fail("hugepolicy(1) has no ENVIRONMENT section")
    return m.group(1)


def check_variables(build, src, readme):
    table = option_table(src)
    header = set(re.findall(r"HUGEPOLICY_[A-Z0-9_]+", open(os.path.join(src, "include/hugepolicy.h")).read()))
    env1 = man1_environment(build)
    cli = {v for v in cli_variables(src, table) if "\\fB%s\\fR" % v in env1}
    for name in sorted(set(re.findall(r"HUGEPOLICY_[A-Z0-9_]+", readme))):
        if name not in table and name not in header and name not in cli:
            fail("README.md names %s: not in the option table, hugepolicy.h or hugepolicy(1)'s "
                 "ENVIRONMENT (a variable the CLI reads)" % name)
    # the variable table: | `HUGEPOLICY_X` | values (`default`) | ... |
    rows = {m.group(1): m.group(2)
            for m in re.finditer(r"^\| `(HUGEPOLICY_[A-Z_]+)` \| ((?:[^|\\]|\\.)*)\|", readme, re.M)}
    for var, default in sorted(table.items()):
        if var not in rows:
            fail("README.md's variable table has no row for %s (policy/options.c has it)" % var)
        want = "(`%s`)" % default if default else "(empty"
        if want not in rows[var]:
            fail("README.md's row for %s does not give the default %s: %s" % (var, want, rows[var].strip()))
    print("ok: README.md names only known variables, and its table has all %d of the option table "
          "with their defaults" % len(table))


def helps(build):
    """{command: (options, valued, optional)} from the CLI's --help output"""
    cli = os.path.join(build, "hugepolicy")
    out = {}
    for cmd in ("", "run", "probe", "tune"):
        argv = [cli] + ([cmd] if cmd else []) + ["--help"]
        text = subprocess.run(argv, stdout=subprocess.PIPE, check=True, text=True).stdout
        opts = set(re.findall(r"(?<![\w-])(-h|--[a-z][a-z-]*)", text)) - {"--opt"}
        # "  --backend B   ..." takes a value; "  --stats [text|json]" may
        valued = set(re.findall(r"^\s+(--[a-z-]+) [A-Z]+\b", text, re.M))
        optional = {m.group(1): set(m.group(2).split("|"))
                    for m in re.finditer(r"^\s+(--[a-z-]+) \[([a-z|]+)\]", text, re.M)}
        out[cmd] = (opts, valued, optional)
    return out


CLI_WORD = r"(\S*/)?hugepolicy"


def segments(readme):
    """the lines of fenced code blocks, and every `code span` (one line) with
    whether its paragraph gives a hugepolicy command line"""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", readme, re.M | re.S)
    prose = re.sub(r"^```[a-z]*\n.*?^```", "", readme, flags=re.M | re.S)
    out = [(line, False) for b in blocks for line in b.splitlines()]
    for para in re.split(r"\n\s*\n", prose):
        spans = [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", para)]
        cli = any(re.match(CLI_WORD + r"( |$)", s.strip()) for s in spans)
        out += [(s, cli) for s in spans]
    return out


def check_options(build, readme):
    known = helps(build)
    every = set().union(*(k[0] for k in known.values()))
    checked = []
    for seg, cli_para in segments(readme):
        words = seg.split("#")[0].split()
        if cli_para and re.fullmatch(r"--[a-z][a-z-]*", seg.strip()):
            if seg.strip() not in every:
                fail("README.md mentions `%s`, which no --help of the CLI has" % seg.strip())
            checked.append(seg.strip())
            continue
        for i, w in enumerate(words):
            if not re.fullmatch(CLI_WORD, w):
                continue
            rest = [x.strip("[]") for x in words[i + 1:]]
            cmd = rest.pop(0) if rest and rest[0] in ("run", "probe", "tune") else ""
            opts, valued, optional = known[cmd]
            while rest:
                x = rest.pop(0)
                if x == "--" or not x.startswith("-"):
                    break
                name = x.split("=")[0]
                if name not in opts:
                    fail("README.md: `%s` has %s, which `hugepolicy %s--help` does not list"
                         % (seg.strip(), name, cmd + " " if cmd else ""))
                checked.append(name)
                if "=" in x:
                    continue
                if name in valued and rest:
                    rest.pop(0)
                elif name in optional and rest and set(rest[0].split("|")) <= optional[name]:
                    rest.pop(0)
    if not checked:
        fail("no hugepolicy command line with options found in README.md")
    print("ok: every option README.md gives the CLI is in its --help: " + " ".join(sorted(set(checked))))


def main():
    what, build, src = sys.argv[1:4]
    readme = open(os.path.join(src, "README.md")).read()
    if what == "variables":
        check_variables(build, src, readme)
    elif what == "options":
        check_options(build, readme)
    else:
        fail("unknown check " + what)


main()
