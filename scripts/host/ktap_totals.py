#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The totals of a run: its KTAP document (scripts/host/test.sh's,
docs/console.md) parsed once, by the kernel's
tools/testing/kunit/kunit_parser.py, and from the parsed tree each failing
test by its full name, where the document has parse errors, and the line
"N passed, N failed, N skipped".  Exit 1 if anything failed or the document
has parse errors.
"""
import argparse
import contextlib
import importlib
import inspect
import os
import sys

kp = None   # the kernel's kunit_parser, imported by parse_run()


@contextlib.contextmanager
def stdout_to(stream):
    """File descriptor 1 is STREAM's meanwhile: 6.12's kunit_parser prints its
    report to the standard output (kunit_printer.stdout, made at import)."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(stream.fileno(), 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def parse_run(path, kunit_dir, report):
    """The KTAP document in PATH, parsed once by kunit_parser.parse_run_tests;
    its report, as kunit.py prints it, goes to file REPORT.  6.12's takes no
    printer, later ones do."""
    global kp
    sys.path.insert(0, kunit_dir)
    with open(report, 'w') as out, stdout_to(out):
        kp = importlib.import_module('kunit_parser')
        # extract_tap_lines() ends a document at a kernel's last words
        # (KTAP_END) anywhere in a line; here they can only be quoted from a
        # log, in a failure's diagnostics: leave those lines out.
        with open(path, errors='replace') as f:
            lines = [l.rstrip('\n').replace('\r', '') for l in f if not kp.KTAP_END.search(l)]
        if 'printer' in inspect.signature(kp.parse_run_tests).parameters:
            return kp.parse_run_tests(lines, importlib.import_module('kunit_printer').Printer(out))
        return kp.parse_run_tests(lines)


def full_name(path):
    return ' > '.join(path) or 'the document'


def failures(test, path=()):
    """The full name of each failing test under TEST, and whether the
    parser's counts, of tests without subtests, miss it: a test without
    subtests that failed or crashed; the subtests that a crash or a timeout
    left out, one name for all of a test's; the innermost test whose own
    result is not ok with no failing test under it (a program that exited
    non-zero after its tests passed, and then its job), which the counts
    miss."""
    S = kp.TestStatus
    missing = [s for s in test.subtests
               if not s.name and not s.subtests and s.status == S.TEST_CRASHED]
    below = [f for sub in test.subtests if not any(sub is m for m in missing)
             for f in failures(sub, path + (sub.name,))]
    yield from below
    if missing:
        yield '%s: %d of %d results missing (a crash or a timeout)' % (
            full_name(path), len(missing), len(test.subtests)), False
    if path and not test.subtests and test.status in (S.FAILURE, S.TEST_CRASHED):
        yield full_name(path), False
    elif (path and test.status == S.FAILURE and not (test.counts.failed or test.counts.crashed)
          and not any(missed for _, missed in below)):
        yield full_name(path) + ' (not ok, with no failing test under it)', True


def parse_errors(test, path=()):
    """Where the parser found errors, and how many: a test's counts add up
    those of its subtests."""
    own = test.counts.errors - sum(s.counts.errors for s in test.subtests)
    if own:
        yield full_name(path), own
    for sub in test.subtests:
        yield from parse_errors(sub, path + (sub.name or '?',))


def totals(path, kunit_dir):
    """The failing tests of the KTAP document in PATH, where it has parse
    errors, and "N passed, N failed, N skipped"; False if anything failed
    or the document has errors."""
    report = path + '.report'
    top = parse_run(path, kunit_dir, report)
    uncounted = 0
    for name, missed in failures(top):
        print('# failed: ' + name)
        uncounted += missed
    for where, n in parse_errors(top):
        print('# KTAP: %d parse error(s) in %s' % (n, where))
    if top.counts.errors:
        print("# KTAP: the parser's report says which: " + report)
    c = top.counts
    failed = c.failed + c.crashed + uncounted
    print('%d passed, %d failed, %d skipped' % (c.passed, failed, c.skipped))
    return not (failed or c.errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('document', help="a whole run's KTAP document (the parser's report: DOCUMENT.report)")
    ap.add_argument('--kunit-dir', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'src', 'tools', 'testing', 'kunit'))
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.kunit_dir, 'kunit_parser.py')):
        sys.exit('ktap_totals.py: no kunit_parser.py in %s; unpack the kernel '
                 'tree first: scripts/host/source.sh' % args.kunit_dir)
    sys.exit(0 if totals(args.document, args.kunit_dir) else 1)


if __name__ == '__main__':
    main()
