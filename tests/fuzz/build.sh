#!/bin/sh
# build.sh SRC OUT CC - the libFuzzer targets of tests/fuzz/ into OUT, with
# clang's -fsanitize=fuzzer,address,undefined.  policy/*.c and
# pages/pages.c are compiled once; each target links them with
# --wrap=open,read,close,fstat,syscall so that vfs.c serves /proc and /sys.
set -eu
src=$1
out=$2
cc=${3:-clang}
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wno-string-plus-int -I$src/include"
mkdir -p "$out/obj"
objs=
for f in "$src"/policy/*.c "$src/pages/pages.c" "$src/tests/fuzz/vfs.c"; do
	o="$out/obj/$(basename "$f" .c).o"
	# shellcheck disable=SC2086
	$cc $cflags $san -c "$f" -o "$o"
	objs="$objs $o"
done
for t in options probe cgroup smaps escape readlines; do
	# shellcheck disable=SC2086
	$cc $cflags $san -fsanitize=fuzzer -o "$out/fuzz_$t.new" "$src/tests/fuzz/fuzz_$t.c" $objs \
		-Wl,--wrap=open,--wrap=read,--wrap=close,--wrap=fstat,--wrap=syscall
	mv "$out/fuzz_$t.new" "$out/fuzz_$t"
done
