#!/bin/sh
# check_linked.sh BINARY... - fail unless every BINARY has libhugepolicy in
# its DT_NEEDED (a glibc test gcc left without a malloc call would
# otherwise run on glibc alone and prove nothing about hugepolicy).
for f in "$@"; do
	if ! readelf -d "$f" | grep -q 'NEEDED.*libhugepolicy'; then
		echo "not linked with libhugepolicy: $f"
		exit 1
	fi
done
echo "$# glibc tests linked with libhugepolicy"
