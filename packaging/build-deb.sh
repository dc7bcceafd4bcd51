#!/bin/sh
# Builds the Debian package from this repository.
#
#   packaging/build-deb.sh [--outdir DIR] [--nocheck] [--jobs N]
#       Copies the source tree (tracked and untracked files that git does not ignore, i.e. your
#       working tree without build directories) to DIR/src/rdmaguard-VERSION, puts
#       packaging/debian there as debian/, runs `dpkg-buildpackage -us -uc -b` in it and leaves
#       rdmaguard_VERSION_ARCH.deb (with its .buildinfo and .changes) in DIR, default ./build-deb.
#       The repository itself is not touched. --nocheck skips the unit suite that the build runs
#       (DEB_BUILD_OPTIONS=nocheck); --jobs N builds with N jobs (default: all CPUs).
#
#   packaging/build-deb.sh --in-tree
#       Only copies packaging/debian to ./debian (ignored by git), so that `dpkg-buildpackage
#       -us -uc -b` works in the repository itself, the usual Debian way; the .deb then lands in
#       the parent directory, and debian/ and obj-*/ are left behind (`debian/rules clean`).
#
# Needs (Debian 12): dpkg-dev, debhelper and the Build-Depends of packaging/debian/control
# (packaging/bootstrap.sh --deps installs them all).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
outdir=$src/build-deb
nocheck=
jobs=$(nproc 2>/dev/null || echo 1)
mode=build

while [ $# -gt 0 ]; do
	case $1 in
	--outdir) outdir=$2; shift ;;
	--outdir=*) outdir=${1#--outdir=} ;;
	--nocheck) nocheck=1 ;;
	--jobs) jobs=$2; shift ;;
	--jobs=*) jobs=${1#--jobs=} ;;
	--in-tree) mode=in-tree ;;
	-h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-deb.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ "$mode" = in-tree ]; then
	rm -rf "$src/debian"
	cp -a "$src/packaging/debian" "$src/debian"
	echo "debian/ is ready: run 'dpkg-buildpackage -us -uc -b' in $src (the .deb goes to $(dirname "$src"))"
	exit 0
fi

for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "build-deb.sh: $tool is missing (apt-get install dpkg-dev debhelper)" >&2
		exit 2
	}
done

version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
case $outdir in /*) ;; *) outdir=$(pwd)/$outdir ;; esac
stage=$outdir/src
tree=$stage/rdmaguard-$version
rm -rf "$stage"
mkdir -p "$tree"

# The working tree as git sees it (so no build directories, no debian/, nothing ignored); a tree
# without git (a release tarball) is copied whole, without build directories.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$tree" -xf -
else
	(cd "$src" && tar --exclude='./build*' --exclude=./debian --exclude='./obj-*' -cf - .) |
		tar -C "$tree" -xf -
fi
rm -rf "$tree/debian"
cp -a "$src/packaging/debian" "$tree/debian"

DEB_BUILD_OPTIONS="parallel=$jobs${nocheck:+ nocheck}${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"
export DEB_BUILD_OPTIONS
echo "build-deb.sh: building rdmaguard $version in $tree (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)"
(cd "$tree" && dpkg-buildpackage -us -uc -b)

# rdmaguard_VERSION_ARCH.{deb,buildinfo,changes}, and the debug symbols (rdmaguard-dbgsym, .ddeb)
for f in "$stage"/rdmaguard_"$version"_* "$stage"/rdmaguard-dbgsym_"$version"_*; do
	if [ -e "$f" ]; then mv -f "$f" "$outdir/"; fi
done
rm -rf "$stage"
ls "$outdir"/rdmaguard_"$version"_*.deb
