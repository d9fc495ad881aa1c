#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel under QEMU (TCG, 2 vCPUs by default) in one of the guest modes
# of qemu/init, and decide from the guest's own verdict.
#
# QEMU exits 0 after a kernel panic or after init exits, exactly as after a
# clean poweroff, so its exit code alone means nothing. The guest reports
# completion through isa-debug-exit (QEMU exit code 33); anything else is a
# failure, and a guest that runs past the timeout is killed and reported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: VARIANT=[debug|kcsan|bench] $0 [options] MODE

MODE is check, stress, run, bench, shell, hang or exit (see qemu/init).
  --timeout SEC   kill the guest after SEC seconds (default: \$BOOT_TIMEOUT
                  or 900; none for shell)
  --smp N         N virtual CPUs (default 2), run by one host thread: with
                  QEMU 7.2's multi-threaded TCG, x86 guests die of an int3
                  Oops when the kernel patches live code (static keys)
  --append ARGS   extra kernel command-line arguments
  --icount        deterministic guest time: -icount shift=0,sleep=off
  --gdb PORT      QEMU's gdb stub on 127.0.0.1:PORT (scripts/count-path.py)
  --log NAME      log name under \$BUILD/logs (default: MODE[-VARIANT])

Writes the console to \$BUILD/logs/NAME.console and the guest's second
serial port (selftest TAP) to \$BUILD/logs/NAME.tap and the third (files the
guest exports, unpacked by scripts/guest-files.sh) to \$BUILD/logs/NAME.out.
Exits 0 only when the guest reported that its run completed.
EOF
}

timeout=${BOOT_TIMEOUT:-900}
append=""
icount=0
gdb=""
smp=2
accel=${KTAU_QEMU_ACCEL:-tcg,thread=single}
name=""
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--gdb) gdb=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--log) name=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
case "$smp" in
''|*[!0-9]*|0) die "boot: --smp needs a number of CPUs, not '$smp'" ;;
esac
mode=$1
case "$mode" in
check|stress|run|bench|shell|hang|exit) ;;
*) die "boot: unknown mode '$mode'" ;;
esac
name=${name:-$mode${VARIANT:+-$VARIANT}}

command -v qemu-system-x86_64 >/dev/null || die "boot: qemu-system-x86_64 not found (run scripts/deps.sh)"
image=$(kernel_image)
initrd=$(initramfs_file)
[ -f "$image" ] || die "boot: no kernel image at $image (run make kernel)"
[ -f "$initrd" ] || die "boot: no initramfs at $initrd (run make initramfs)"

mkdir -p "$LOGS"
console=$LOGS/$name.console
tap=$LOGS/$name.tap
out=$LOGS/$name.out
rm -f "$console" "$tap" "$out"

release=$(cat "$(obj_dir)/include/config/kernel.release")
cmdline="console=ttyS0 panic=-1 ktau_mode=$mode ktau_release=$release"
# KUnit runs in the check boot only; the stress boot keeps the full log
# level, since lockdep reports and WARN()s print below "quiet"'s.
case "$mode" in
check) ;;
stress) cmdline+=" kunit.enable=0" ;;
*) cmdline+=" kunit.enable=0 quiet" ;;
esac
[ -n "$append" ] && cmdline+=" $append"

qemu=(qemu-system-x86_64 -machine pc -accel "$accel" -cpu max -smp "$smp" -m 1G
	-no-reboot -display none -monitor none
	-device isa-debug-exit,iobase=0xf4,iosize=0x04
	-kernel "$image" -initrd "$initrd" -append "$cmdline")
[ "$icount" = 1 ] && qemu+=(-icount shift=0,sleep=off)
[ -n "$gdb" ] && qemu+=(-gdb "tcp:127.0.0.1:$gdb")

if [ "$mode" = shell ]; then
	qemu+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$console"
		-serial chardev:con -serial "file:$tap" -serial "file:$out")
	rc=0
	"${qemu[@]}" || rc=$?
	[ "$rc" = 33 ] && exit 0
	exit 1
fi

if [ "$mode" = run ]; then
	qemu+=(-chardev "stdio,id=con,signal=off,logfile=$console"
		-serial chardev:con -serial "file:$tap" -serial "file:$out")
	exec 0</dev/null
else
	qemu+=(-serial "file:$console" -serial "file:$tap" -serial "file:$out")
fi

rc=0
timeout -k 10 "$timeout" "${qemu[@]}" || rc=$?
case "$rc" in
33)
	exit 0
	;;
124|137)
	echo "error: boot: guest ($name) hung: killed after ${timeout}s; last console lines:" >&2
	;;
35)
	echo "error: boot: guest ($name) reported a failure of its runner; last console lines:" >&2
	;;
0)
	echo "error: boot: guest ($name) stopped without a verdict (panic, or init exited); last console lines:" >&2
	;;
*)
	echo "error: boot: QEMU ($name) exited with $rc; last console lines:" >&2
	;;
esac
tail -n 15 "$console" 2>/dev/null | sed 's/^/    /' >&2
exit 1
