#!/usr/bin/env bash
# "make demo" works: on the test kernel, both freezes from the host freeze
# every workload task (the kernel says "frozen" for each), and after each
# thaw the guest reports its workloads resumed, the pipe reader without EINTR.
# Its picture is a well-formed PNG (signature, IHDR of non-zero size first,
# every chunk's CRC, IEND last), and its data file has exactly one lane per
# workload task (the pids the guest printed on its DEMO-TASKS line) for
# each freezer.
. "$(dirname "$0")/lib.sh"

out=$LOGS/demo.out
pic=$BUILD/test-demo
name="demo: make demo narrates a todo and a classic freeze"
pic_name="demo: timeline.png is a well-formed PNG with one lane per workload task per freezer"

# check_timeline PNG DAT LOG: prints what is wrong, fails if anything is.
check_timeline() {
	python3 - "$@" <<'PY'
import struct
import sys
import zlib

png, dat, log = sys.argv[1:]
errors = []
try:
    b = open(png, 'rb').read()
except OSError as e:
    sys.exit('# %s' % e)
if b[:8] != b'\x89PNG\r\n\x1a\n':
    errors.append('no PNG signature')
else:
    pos, chunks = 8, []
    while pos + 8 <= len(b):
        n, typ = struct.unpack('>I4s', b[pos:pos + 8])
        data, crc = b[pos + 8:pos + 8 + n], b[pos + 8 + n:pos + 12 + n]
        if len(data) != n or len(crc) != 4:
            errors.append('chunk %r truncated' % typ)
            break
        if zlib.crc32(typ + data) != struct.unpack('>I', crc)[0]:
            errors.append('chunk %r has a bad CRC' % typ)
        chunks.append((typ, data))
        pos += 12 + n
        if typ == b'IEND':
            break
    if not chunks or chunks[0][0] != b'IHDR' or len(chunks[0][1]) != 13:
        errors.append('the first chunk is not an IHDR')
    else:
        w, h = struct.unpack('>II', chunks[0][1][:8])
        if not w or not h:
            errors.append('IHDR size %dx%d' % (w, h))
        print('# %s: %dx%d, %d chunks' % (png, w, h, len(chunks)))
    if not chunks or chunks[-1][0] != b'IEND':
        errors.append('no IEND chunk')
pids = None
for line in open(log, errors='replace'):
    if line.startswith('DEMO-TASKS: '):
        pids = sorted(int(p) for p in line.split()[1:])
if not pids:
    errors.append('no DEMO-TASKS line in %s' % log)
lanes = {}
for line in open(dat):
    f = line.split()
    if line.startswith('#') or len(f) < 5 or f[4] != 'lane':
        continue
    lanes.setdefault(f[0], []).append(int(f[2]))
for fz in ('todo', 'classic'):
    got = sorted(lanes.get(fz, []))
    if got != pids:
        errors.append('%s freezer: lanes for pids %s, the workload tasks are %s' % (fz, got, pids))
    else:
        print('# %s freezer: %d lanes, one per workload task' % (fz, len(got)))
for e in errors:
    print('# ' + e)
sys.exit(1 if errors else 0)
PY
}

rm -rf "$pic"
if DEMO_OUT=$pic FLAVOUR=$TEST_FLAVOUR timeout 300 "$TOP/scripts/demo.sh" >"$out" 2>&1; then
	frozen=$(grep -c '^    [0-9]* [^ ]* frozen: nothing pending$' "$out" || true)
	if [ "$frozen" -eq 12 ]; then
		expect "$name" "$out" 'user space frozen \(todo freezer\)' \
			'user space frozen \(classic freezer\)' 'resumed; the longest pause' \
			'read\(\) returned 1 \(the byte, no EINTR\)'
	else
		fail "$name ($frozen of 12 task views say frozen)" "$out"
	fi
	if ! grep -q "timeline picture: ${pic#"$TOP"/}/timeline.png" "$out"; then
		fail "$pic_name (the demo printed no path of its picture)" "$out"
	elif check_timeline "$pic/timeline.png" "$pic/timeline.dat" "$LOGS/demo.log" >"$out.timeline" 2>&1; then
		cat "$out.timeline"
		pass "$pic_name"
	else
		fail "$pic_name" "$out.timeline"
	fi
else
	fail "$name" "$out"
	fail "$pic_name (the demo failed)" "$out"
fi
