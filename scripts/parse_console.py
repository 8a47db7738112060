#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a saved guest console log: the guest job's KTAP document, parsed
once by the kernel's tools/testing/kunit/kunit_parser.py, and the kernel
log's reports (docs/console.md).  Prints the results as one KTAP subtest,
one result per test, and exits 1 if any failed; --totals parses a whole
KTAP document (scripts/test.sh's) and prints its totals.
"""
import argparse
import io
import os
import re
import sys
from itertools import count

INIT_TAG = 'TODO-INIT:'   # the guest init's first line; the document follows
NUMBER = count(1)
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
        if not m or lines[i].lstrip().startswith('#'):
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


FAILED = []


def result(ok, name, skip=None, diag=()):
    """One result line of the subtest, after its "# " diagnostics."""
    for d in diag:
        print('    # ' + d)
    print('    %s %s%s' % ('ok' if ok else 'not ok', '%d %s' % (next(NUMBER), name),
                           '' if skip is None else ' # SKIP ' + skip))
    FAILED.extend([] if ok else [name])


def read_log(path):
    with open(path, errors='replace') as f:
        return [l.rstrip('\r\n').replace('\r', '') for l in f]


def load_parser(kunit_dir):
    """kunit_parser, quiet (its errors go to kp.ERRORS), keeping each
    result line: it drops the reason of a SKIP."""
    global kp
    sys.path.insert(0, kunit_dir)
    import kunit_parser as kp
    import kunit_printer
    kp.ERRORS = io.StringIO()
    kp.stdout = kunit_printer.Printer(kp.ERRORS)
    plain = kp.parse_test_result

    def keep_line(lines, test, expected_num):
        test.line = lines.peek()
        return plain(lines, test, expected_num)
    kp.parse_test_result = keep_line


def parse(lines):
    """The KTAP document that starts LINES.  Not through kunit.py's own
    extraction: it takes the first document (KUnit's at boot) and stops at
    some kernel messages."""
    return kp.parse_test(kp.LineStream(iter(enumerate(lines, 1))), 0, [], False)


def leaves(test, path=()):
    """(ok, path, SKIP reason, log) of each test without subtests; a parent
    that failed with no failing leaf, or lacks subtests its plan promised
    (a crash or a timeout), is one failing leaf more."""
    S = kp.TestStatus
    if test.status == S.NO_TESTS and not test.subtests and path:  # passes, as before
        yield True, path[:-1] + (path[-1] + ' (no TAP results)',), None, test.log
    elif not test.subtests:
        m = re.search(r' # SKIP ?(.*)$', getattr(test, 'line', ''))
        yield test.status in (S.SUCCESS, S.SKIPPED), path or ('no results',), m and m.group(1), test.log
    bad = False
    for sub in test.subtests:
        if sub.name or sub.subtests:
            for leaf in leaves(sub, path + (sub.name or '?',)):
                bad |= not leaf[0]
                yield leaf
    missing = sum(1 for t in test.subtests if not t.name and not t.subtests)
    if missing:
        yield False, path + ('%d of %d results missing (crash or timeout)'
                             % (missing, len(test.subtests)),), None, test.log
    elif test.subtests and test.status == S.FAILURE and not bad:
        yield False, path + ('failed with no failing test',), None, test.log


def guest_document(lines, suites):
    """The results of the guest job's KTAP document, which follows the
    guest init's first line, named "kunit: SUITE.CASE" and "guest: PROGRAM:
    TEST"; the KUnit SUITES must be in it."""
    start = next((n + 1 for n, l in enumerate(lines) if l.startswith(INIT_TAG)), len(lines))
    if not any(kp.KTAP_START.match(l) for l in lines[start:]):
        return result(False, 'guest: a KTAP document after "%s"' % INIT_TAG, diag=lines[-10:])
    top = parse(lines[start:])
    for ok, path, skip, log in leaves(top):
        name = 'kunit: ' + '.'.join(path[1:]) if path[0] == 'kunit' else 'guest: ' + ': '.join(path)
        result(ok, name, skip, diag=() if ok else log[-40:])
    kunit = [t for t in top.subtests if t.name == 'kunit']
    for suite in suites:
        result(any(t.name == suite and t.status == kp.TestStatus.SUCCESS
                   for k in kunit for t in k.subtests), 'kunit: suite %s ran and passed' % suite)


def totals(path):
    """The failing leaves of the KTAP document in PATH, its parse errors,
    and "N passed, N failed, N skipped"; False if anything failed."""
    top = parse(read_log(path))
    for ok, leaf, skip, log in leaves(top):
        if not ok:
            print('# failed: ' + ' > '.join(leaf))
    errors = [l.split('[ERROR]')[1] for l in kp.ERRORS.getvalue().splitlines() if '[ERROR]' in l]
    for e in errors:
        print('# KTAP:' + e)
    c = top.counts
    print('%d passed, %d failed, %d skipped' % (c.passed, c.failed + c.crashed, c.skipped))
    return not (c.failed or c.crashed or errors)


def splats(lines, skip=()):
    # Lines of the guest programs' own output are not kernel reports.
    found = [l for n, l in enumerate(lines)
             if SPLAT_RE.search(l) and not l.lstrip().startswith('#') and n not in skip]
    result(not found, 'kernel: no warnings, lockdep, KASAN or hung-task reports',
           diag=found[:20])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('log')
    ap.add_argument('--name', default='console', help='the subtest that holds the results')
    ap.add_argument('--kernel-only', action='store_true', help='no KTAP document: the kernel log')
    ap.add_argument('--kunit-suites', default='', help='KUnit suites that must have passed')
    ap.add_argument('--kunit-dir', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'src', 'tools', 'testing', 'kunit'))
    ap.add_argument('--classify-reports', action='store_true',
                    help='fail on KCSAN and lockdep reports in the todo list or freezer '
                         'code; list the others with their location instead of failing')
    ap.add_argument('--totals', action='store_true', help='LOG is a KTAP document: its totals')
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.kunit_dir, 'kunit_parser.py')):
        sys.exit('parse_console.py: no kunit_parser.py in %s; unpack the kernel '
                 'tree first: scripts/source.sh' % args.kunit_dir)
    load_parser(args.kunit_dir)
    if args.totals:
        sys.exit(0 if totals(args.log) else 1)
    lines = read_log(args.log)
    print('    KTAP version 1\n    # Subtest: ' + args.name)
    if not args.kernel_only:
        guest_document(lines, args.kunit_suites.split())
    skip = classify_reports(lines) if args.classify_reports else set()
    splats(lines, skip)
    sys.exit(1 if FAILED else 0)


if __name__ == '__main__':
    main()
