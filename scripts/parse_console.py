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


# KCSAN and lockdep reports (--classify-reports, the SMP kernel): the first
# line of a report, and the frames that place it.
REPORT_RE = re.compile(r'(BUG: KCSAN: .*|WARNING: possible circular locking dependency detected|'
                       r'WARNING: possible recursive locking detected|'
                       r'WARNING: inconsistent lock state|'
                       r'WARNING: possible irq lock inversion dependency detected|'
                       r'WARNING: bad unlock balance detected!|'
                       r'WARNING: lock held when returning to user space!|'
                       r'WARNING: suspicious RCU usage|'
                       r'BUG: sleeping function called from invalid context|'
                       r'WARNING: .*held lock freed!)')
FRAME_RE = re.compile(r'^\s*(?:\[[^]]*\]\s*)?\??\s*([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')
# Functions of the todo list and of both freezers (kernel/task_todo*.c,
# kernel/freezer.c, kernel/power/process.c, the cgroup freezers).
SERIES_FN_RE = re.compile(r'^(task_todo\w*|__try_task_todo|try_task_todo|exit_task_todo|todo_\w+|'
                          r'\w*freez\w*|__refrigerator|\w*thaw\w*|frozen\w*)$')
# How many frames of each stack place a KCSAN report: the first is the
# function that made the access (inlined code shows as its caller); the
# frames below it are callers, and would blame, say, a caller of
# mutex_lock() for a race inside the mutex (osq_lock / osq_unlock, seen
# under make smp-test with the todo trigger taking its mutex).
KCSAN_TOP_FRAMES = 1


def report_blocks(lines):
    """Split out each KCSAN or lockdep report: (first line, its lines, and
    the index range).  A report ends at KCSAN's closing ==== line, at the
    end of the stack dump (</TASK>), or after 120 lines."""
    blocks, i = [], 0
    while i < len(lines):
        m = REPORT_RE.search(lines[i])
        if not m or lines[i].startswith('#'):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and j - i < 120:
            if lines[j].lstrip().startswith('====') or '</TASK>' in lines[j]:
                if 'KCSAN' not in m.group(1) or lines[j].lstrip().startswith('===='):
                    j += 1
                    break
            j += 1
        blocks.append((m.group(1), lines[i:j], (i, j)))
        i = j
    return blocks


def report_frames(title, block):
    """The functions that place a report: for KCSAN the two named in the
    title and the top frames of each access; for lockdep every frame."""
    if title.startswith('BUG: KCSAN:'):
        names = re.findall(r'[A-Za-z_][\w.]*', title.split(' in ', 1)[-1])
        top = 0
        for line in block[1:]:
            if re.search(r'(read|write|\(marked\)).* by (task|interrupt)', line):
                top = KCSAN_TOP_FRAMES
                continue
            m = FRAME_RE.match(line)
            if m and top:
                names.append(m.group(1))
                top -= 1
        return names
    return [m.group(1) for m in map(FRAME_RE.match, block) if m]


def classify_reports(lines):
    """KCSAN and lockdep reports: those in the todo list or freezer code fail;
    the others are listed with where they are, and left out of splats()."""
    ours, theirs, skip = [], [], set()
    for title, block, (i, j) in report_blocks(lines):
        names = report_frames(title, block)
        base = [n.split('.')[0] for n in names]
        hit = sorted({n for n in base if SERIES_FN_RE.match(n)})
        where = ', '.join(dict.fromkeys(base[:6])) or 'no frames'
        if hit:
            ours.append('%s [series: %s] at %s' % (title, ' '.join(hit), where))
        else:
            theirs.append('%s at %s' % (title, where))
            skip.update(range(i, j))
    result(not ours, 'kernel: no KCSAN or lockdep report in the todo list or freezer code',
           diag=ours[:20])
    uniq = list(dict.fromkeys(theirs))
    result(True, 'kernel: %d KCSAN or lockdep report(s) elsewhere in the kernel (%d distinct), listed'
           % (len(theirs), len(uniq)), diag=['elsewhere: ' + t for t in uniq[:40]])
    return skip


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


def splats(lines, skip=()):
    # Lines of the guest programs' own output are not kernel reports.
    found = [l for n, l in enumerate(lines)
             if SPLAT_RE.search(l) and not l.startswith('#') and n not in skip]
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
    ap.add_argument('--classify-reports', action='store_true',
                    help='fail on KCSAN and lockdep reports in the todo list or freezer '
                         'code; list the others with their location instead of failing')
    args = ap.parse_args()
    lines = read_log(args.log)
    if not args.no_kunit:
        kunit(os.path.abspath(args.log), lines, os.path.abspath(args.kunit_py))
    guest_programs(lines)
    skip = classify_reports(lines) if args.classify_reports else set()
    splats(lines, skip)


if __name__ == '__main__':
    main()
