#!/usr/bin/env bash
# Runs the README's two commands, tools/main.sh then tools/test.sh, on a clean
# Debian 12 that never had the project: a fresh bookworm root made with
# mmdebstrap, holding a git clone of this repository's HEAD (committed work
# only, no build directories), entered with chroot. A machine that already
# ran the project hides missing install steps; this one does not.
#
#   tools/clean_machine_check.sh [--ccache DIR] [--keep]
#
# Needs root (mmdebstrap, mount, chroot) and the network (Debian's mirror).
# --ccache DIR compiles through ccache with DIR as its cache (bind-mounted):
# the packages still all come from tools/deps.sh, only the compiling is
# shorter. --keep leaves the root in place (its path is printed) for a look
# after a failure; it is unmounted all the same.
# Prints each command's result and time; exits non-zero when either failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

ccache_dir=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ccache) ccache_dir="$(cd "${2:?--ccache needs a directory}" && pwd)"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: tools/clean_machine_check.sh [--ccache DIR] [--keep]" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "clean_machine_check: needs root (mmdebstrap, mount, chroot)" >&2
  exit 2
fi
if ! command -v mmdebstrap >/dev/null; then
  echo "clean_machine_check: installing mmdebstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

revision="$(git -C "$root" rev-parse HEAD)"
work="$(mktemp -d /var/tmp/gltrace-clean.XXXXXX)"
target="$work/root"
mounted=()  # in mount order; unmounted in reverse

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  local status=$?
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" || umount -l "${mounted[i]}" || true
  done
  mounted=()
  # Nothing may be mounted below $target any more: rm stays on this
  # file system in any case.
  if [ "$keep" -eq 1 ]; then
    echo "clean_machine_check: root kept in $target"
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_in() {  # mount_in TARGET_PATH MOUNT_ARGS...
  local where="$target$1"
  shift
  mkdir -p "$where"
  mount "$@" "$where"
  mounted+=("$where")
}

seconds() { date +%s; }

echo "== clean Debian 12 root (mmdebstrap --variant=apt bookworm) in $target"
start="$(seconds)"
mmdebstrap --quiet --variant=apt bookworm "$target"
echo "made in $(($(seconds) - start)) s"

echo "== a clone of $revision"
git clone --quiet "file://$root" "$target/work/gltrace"
git -C "$target/work/gltrace" checkout --quiet --detach "$revision"

mount_in /proc -t proc proc
mount_in /sys -t sysfs sysfs
mount_in /dev -t devtmpfs devtmpfs
mount_in /dev/pts -t devpts -o newinstance,ptmxmode=0666 devpts
mount_in /dev/shm -t tmpfs -o mode=1777 tmpfs
# The machine's network setup, which a fresh machine of its kind has too: its
# resolver, and the certificate authorities it trusts (an egress proxy's
# among them: npm reaches its registry through it). Local ones go where
# update-ca-certificates finds them again when apt installs ca-certificates.
cp /etc/resolv.conf "$target/etc/resolv.conf"
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$target/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$target/usr/local/share/ca-certificates/"
fi
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$target/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$target/etc/ssl/certs/"
fi

# A login's environment, nothing of this shell's.
chroot_env=(env -i HOME=/root LANG=C.UTF-8 TERM=dumb
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
# ... except the machine's own network settings.
for variable in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR http_proxy https_proxy no_proxy \
  HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  if [ -n "${!variable:-}" ]; then chroot_env+=("$variable=${!variable}"); fi
done
if [ -n "$ccache_dir" ]; then
  echo "== ccache (compiling only; the packages still come from tools/deps.sh)"
  chroot "$target" "${chroot_env[@]}" bash -c \
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ccache >/dev/null'
  mount_in /ccache --bind "$ccache_dir"
  # CMake takes the launcher from these variables; /work is the cache's base
  # directory on this machine, so paths below it match.
  chroot_env+=(CCACHE_DIR=/ccache CCACHE_BASEDIR=/work CMAKE_C_COMPILER_LAUNCHER=ccache
    CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

results=()
failed=0
for command in tools/main.sh tools/test.sh; do
  echo
  echo "== $command on the clean machine"
  start="$(seconds)"
  status=0
  chroot "$target" "${chroot_env[@]}" bash -c "cd /work/gltrace && $command" || status=$?
  elapsed="$(($(seconds) - start))"
  if [ "$status" -eq 0 ]; then
    results+=("$command: passed in ${elapsed} s")
  else
    results+=("$command: FAILED (status $status) after ${elapsed} s")
    failed=1
  fi
  echo "-- ${results[-1]}"
done

echo
echo "== clean Debian 12, revision $revision"
printf '%s\n' "${results[@]}"
exit "$failed"
