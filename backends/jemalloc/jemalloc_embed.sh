#!/bin/sh
# jemalloc_embed.sh ARCHIVE OUTDIR - make libhpje.a from Debian's
# libjemalloc_pic.a for embedding in libhugepolicy.so:
#  - drop the C++ member (its operator new/delete and its libstdc++ need);
#  - rename every public (non-je_) name to hpje_NAME (objcopy
#    --redefine-syms), so jemalloc's malloc, mallctl, malloc_conf... cannot
#    clash with hugepolicy's and are never exported;
#  - rename its call of pthread_atfork to hpje_pthread_atfork, so that its
#    fork handlers are wrapped in glibc's lock order (jemalloc_fork.c), and
#    its calls of mmap, munmap and madvise to hpje_* (jemalloc_os.c: auto's
#    heap promotion sees every mapping of its heap);
#  - remove jemalloc's only library constructor (the one .init_array entry in
#    jemalloc.pic.o, its eager malloc_init): jemalloc initialises lazily on
#    first use, so an unselected jemalloc never runs.
set -eu
archive=$1
out=$2
rm -rf "$out/obj"
mkdir -p "$out/obj"
cd "$out/obj"
ar x "$archive"
rm -f jemalloc_cpp.pic.o
nm -g --defined-only ./*.o | awk 'NF == 3 { print $3 }' | grep -v '^je_' | sort -u \
	| awk '{ print $1, "hpje_" $1 }' > ../redefine.syms
test -s ../redefine.syms
for f in pthread_atfork mmap munmap madvise; do
	echo "$f hpje_$f" >> ../redefine.syms
done
for o in ./*.o; do
	objcopy --redefine-syms=../redefine.syms "$o"
done
objcopy -R .init_array -R .rela.init_array jemalloc.pic.o
if readelf -S ./*.o | grep -q '\.init_array'; then
	echo "jemalloc_embed.sh: an .init_array is left in $archive" >&2
	exit 1
fi
rm -f ../libhpje.a
ar rcs ../libhpje.a ./*.o
