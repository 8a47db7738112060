#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a saved guest console log into one result line per test.

Reads the KUnit results (through the kernel's own tools/testing/kunit/kunit.py
parse), the kselftest TAP of every guest program (between the TODO-PROG-BEGIN
and TODO-PROG-END markers printed by scripts/guest/test.sh), and checks the
kernel log for splats.  Prints "ok - NAME", "not ok - NAME" or
"ok - NAME # SKIP why" lines, with "# " diagnostics, so scripts/test.sh can
count them.  Re-run it on any log in build/logs/ without booting again.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TAP_RE = re.compile(r'^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|XFAIL)\b\s*(.*))?$')
BEGIN_RE = re.compile(r'^TODO-PROG-BEGIN: (\S+)$')
END_RE = re.compile(r'^TODO-PROG-END: (\S+) (\d+)$')
# Kernel reports that mean a test run is not clean, whatever the tests said.
SPLAT_RE = re.compile(r'(BUG: |WARNING: |Kernel panic|KASAN|UBSAN|'
                      r'possible circular locking|inconsistent lock state|'
                      r'sleeping function called from invalid context|'
                      r'INFO: task .* blocked for more than|'
                      r'suspicious RCU usage|Oops)')


def result(ok, name, skip=None, diag=()):
    line = '%s - %s' % ('ok' if ok else 'not ok', name)
    if skip is not None:
        line += ' # SKIP ' + skip
    print(line)
    for d in diag:
        print('# ' + d)


def read_log(path):
    with open(path, errors='replace') as f:
        return [l.rstrip('\r\n').replace('\r', '') for l in f]


def guest_programs(lines):
    """Results of the guest programs; a failing one carries the program's
    own "# " lines printed since its previous result."""
    prog, seen_fail, seen_any, notes = None, False, False, []
    for line in lines:
        m = BEGIN_RE.match(line)
        if m:
            prog, seen_fail, seen_any, notes = m.group(1), False, False, []
            continue
        if prog is None:
            continue
        m = END_RE.match(line)
        if m and m.group(1) == prog:
            status = int(m.group(2))
            if not seen_any:
                result(status == 0, 'guest: %s (no TAP results; exit %d)' % (prog, status))
            elif status != 0 and not seen_fail:
                result(False, 'guest: %s exited %d with no failing test' % (prog, status))
            prog = None
            continue
        m = TAP_RE.match(line)
        if m:
            ok = m.group(1) == 'ok'
            seen_any = True
            seen_fail |= not ok
            skip = m.group(4) if m.group(3) == 'SKIP' else None
            result(ok, 'guest: %s: %s' % (prog, m.group(2)), skip,
                   diag=() if ok else [n[1:].strip() for n in notes])
            notes = []
        elif line.startswith('#'):
            notes.append(line)
    if prog is not None:
        result(False, 'guest: %s did not finish (crash or timeout)' % prog)


def kunit_cases(group, prefix=''):
    name = group.get('name', '')
    path = prefix + name + '.' if name and name != 'KUnit Test Group' else prefix
    for case in group.get('test_cases', []):
        yield path + case['name'], case['status']
    for sub in group.get('sub_groups', []):
        yield from kunit_cases(sub, path)


def kunit(log, lines, kunit_py):
    if not any('KTAP version' in l or 'TAP version' in l for l in lines):
        return
    with tempfile.NamedTemporaryFile(suffix='.json') as out:
        proc = subprocess.run([sys.executable, kunit_py, 'parse', '--json=' + out.name, log],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            with open(out.name) as f:
                data = json.load(f)
        except (OSError, ValueError):
            result(False, 'kunit: kunit.py parse produced no results',
                   diag=proc.stdout.splitlines()[-10:])
            return
    for name, status in kunit_cases(data):
        result(status in ('PASS', 'SKIP'), 'kunit: ' + name,
               skip='' if status == 'SKIP' else None)


def splats(lines):
    # Lines of the guest programs' own output are not kernel reports.
    found = [l for l in lines if SPLAT_RE.search(l) and not l.startswith('#')]
    result(not found, 'kernel: no warnings, lockdep, KASAN or hung-task reports',
           diag=found[:20])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('log')
    ap.add_argument('--no-kunit', action='store_true',
                    help='the boot ran no KUnit (kunit.enable=0): do not look for KUnit '
                         'results, or kunit.py takes the guest programs\' TAP for them')
    ap.add_argument('--kunit-py', default=os.path.join(
        os.path.dirname(__file__), '..', 'build', 'src', 'tools', 'testing', 'kunit', 'kunit.py'))
    args = ap.parse_args()
    lines = read_log(args.log)
    if not args.no_kunit:
        kunit(os.path.abspath(args.log), lines, os.path.abspath(args.kunit_py))
    guest_programs(lines)
    splats(lines)


if __name__ == '__main__':
    main()
