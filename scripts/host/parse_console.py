#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a saved guest console log for a host test (docs/console.md): the
guest job's KTAP document, passed on as the guest printed it, nested as one
subtest whose status is the document's, and results on the kernel log
beside it.  (A whole run's totals: scripts/host/ktap_totals.py.)
"""
import argparse
import re
import sys

INIT_TAG = 'TODO-INIT:'   # the guest init's first line; the document follows
EXIT_TAG = 'TODO-EXIT:'   # the guest init's last line: the document ended

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


# The number of the last result printed: the host test's results go on
# from --first (tests/host/lib.sh).
NUMBER = 0


def result(ok, name, diag=(), why=''):
    """One result of the host test, after its "# " diagnostics."""
    global NUMBER
    NUMBER += 1
    for d in diag:
        print('# ' + d)
    print('%s %d - %s%s' % ('ok' if ok else 'not ok', NUMBER, name, ' # ' + why if why else ''))


def read_log(path):
    with open(path, errors='replace') as f:
        return [l.rstrip('\r\n').replace('\r', '') for l in f]


# A line of the job's document at its top level; the lines of its subtests
# are indented four spaces per level (scripts/guest/job-lib.sh), the kernel's
# messages between them are not.
TOP_LINE_RE = re.compile(r'(KTAP version \d+|1\.\.\d+|(not )?ok \d+ .*)$')
# Its results and its plan, at its top level.
RESULT_RE = re.compile(r'(not )?ok \d+ ')
PLAN_RE = re.compile(r'1\.\.(\d+)')
# The lines that open and close subtests, and their indentation.
NESTING_RE = re.compile(r'( *)(?:(KTAP version \d+)|# Subtest: (.*)|(?:not )?ok \d+ )')


def job_document(lines):
    """The guest job's KTAP document: from the first "KTAP version" line
    after the guest init's first line to its exit line, without the kernel
    messages printed among its lines; and whether the exit line came (if
    not: a crash or a timeout).  The exit line's number, the job's exit
    status, is not read: the document says what passed."""
    start = next((n + 1 for n, l in enumerate(lines) if l.startswith(INIT_TAG)), len(lines))
    doc = []
    for line in lines[start:]:
        if line.startswith(EXIT_TAG):
            return doc, True
        if (doc or line.startswith('KTAP version')) and (line.startswith('    ') or TOP_LINE_RE.match(line)):
            doc.append(line)
    return doc, False


def close_cut_subtests(doc):
    """The result lines of the subtests that DOC opens and never closes (a
    crash or a timeout cut it there), each "not ok" and numbered after its
    siblings: without them the one parse of the run would take the lines
    that follow, the host test's, for the missing results."""
    opened, done = [], {0: 0}   # open subtests [depth, name]; results per depth
    for line in doc:
        m = NESTING_RE.match(line)
        if not m:
            continue
        depth, version, subtest = len(m.group(1)) // 4, m.group(2), m.group(3)
        if subtest is not None and opened and opened[-1] == [depth, '']:
            opened[-1][1] = subtest           # the name of the subtest just opened
        elif (version or subtest is not None) and depth:
            opened.append([depth, subtest or ''])
            done[depth] = 0
        elif not version and subtest is None:  # a result closes what is deeper
            while opened and opened[-1][0] > depth:
                opened.pop()
            done[depth] = done.get(depth, 0) + 1
    closing = []
    for depth, name in reversed(opened):
        done[depth - 1] = done.get(depth - 1, 0) + 1
        closing.append('%snot ok %d %s # the document ends here: a crash or a timeout'
                       % ('    ' * (depth - 1), done[depth - 1], name))
    return closing


def document_status(doc, ended, cut):
    """The status of the job's document as a subtest, from the document
    alone: ok if it ended, all its own results are ok and its plan has
    them all; else not ok, and why when its results do not say."""
    if cut:
        return False, 'cut off: a crash or a timeout'
    if not ended:
        return False, 'no "%s" line: a crash or a timeout' % EXIT_TAG
    own = [l for l in doc if RESULT_RE.match(l)]
    plan = next((int(m.group(1)) for m in map(PLAN_RE.match, doc) if m), None)
    if plan is not None and len(own) < plan:
        return False, '%d of %d results missing' % (plan - len(own), plan)
    return not any(l.startswith('not ok ') for l in own), ''


def guest_document(lines, name, suites):
    """The guest job's KTAP document as subtest NAME, and whether each KUnit
    suite in SUITES passed in it."""
    doc, ended = job_document(lines)
    if not doc:
        return result(False, name, diag=['no KTAP document after "%s"; the log ends:' % INIT_TAG]
                      + lines[-10:])
    cut = close_cut_subtests(doc)
    print('    %s\n    # Subtest: %s' % (doc[0], name))
    for line in doc[1:] + cut:
        print('    ' + line)
    ok, why = document_status(doc, ended, cut)
    result(ok, name, why=why)
    passed = kunit_passed(doc)
    for suite in suites:
        result(suite in passed, 'kunit: suite %s ran and passed' % suite)


def kunit_passed(doc):
    """The KUnit suites that passed, as the job's subtest "kunit" lists them
    (scripts/guest/job-lib.sh): its results, up to its own result line."""
    passed, inside = set(), False
    for line in doc:
        if line == '    # Subtest: kunit':
            inside = True
        elif inside and not line.startswith(' '):
            break
        elif inside and re.match(r'    ok \d+ \S+$', line):
            passed.add(line.split()[2])
    return passed


def expected_reports(lines, text):
    """The kernel reports a test causes on purpose (--expected-report): each
    from a line with TEXT to the report's closing ==== line (or 200 lines);
    there must be one.  Their lines are left out of splats()."""
    skip, n, i = set(), 0, 0
    while i < len(lines):
        if text not in lines[i] or lines[i].lstrip().startswith('#'):
            i += 1
            continue
        n += 1
        j = i + 1
        while j < len(lines) and j - i < 200 and not lines[j].lstrip().startswith('===='):
            j += 1
        skip.update(range(i, j + 1))
        i = j + 1
    result(n > 0, "kernel: the report the test causes on purpose is there: '%s' (%d)" % (text, n))
    return skip


def splats(lines, skip=()):
    # Lines of the guest programs' own output are not kernel reports.
    found = [l for n, l in enumerate(lines)
             if SPLAT_RE.search(l) and not l.lstrip().startswith('#') and n not in skip]
    result(not found, 'kernel: no warnings, lockdep, KASAN or hung-task reports',
           diag=found[:20])


def main():
    global NUMBER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('log')
    ap.add_argument('--name', default='console', help="the subtest that holds the job's document")
    ap.add_argument('--first', type=int, default=1, metavar='N',
                    help="the number of the first result: the host test's results go on")
    ap.add_argument('--kernel-only', action='store_true', help='no KTAP document: the kernel log')
    ap.add_argument('--kunit-suites', default='', help='KUnit suites that must have passed')
    ap.add_argument('--classify-reports', action='store_true',
                    help='fail on KCSAN and lockdep reports in the todo list or freezer '
                         'code; list the others with their location instead of failing')
    ap.add_argument('--expected-report', metavar='TEXT',
                    help='a report the test causes on purpose, by a text of its first line: '
                         'it must be there, and is not a splat')
    args = ap.parse_args()
    # The results say what failed: the exit status is 0 once they are out.
    NUMBER = args.first - 1
    try:
        lines = read_log(args.log)
    except OSError as e:
        # make parse LOG=FILE with a path that is not there: say so, not
        # a traceback.
        sys.exit('parse_console.py: error: cannot read the console log %s: %s\n'
                 '  the logs of the last boots are in build/logs/ (make test: build/logs/guest-suite.log)'
                 % (args.log, e.strerror))
    if not args.kernel_only:
        guest_document(lines, args.name, args.kunit_suites.split())
    skip = classify_reports(lines) if args.classify_reports else set()
    if args.expected_report:
        skip |= expected_reports(lines, args.expected_report)
    splats(lines, skip)


if __name__ == '__main__':
    main()
