#!/usr/bin/env bash
# Runs the test suite on Debian's 5.10, 6.1 and 6.12 kernels under qemu: the
# kernel matrix of CI. Exits 1 if any package on any kernel fails, times out
# or does not run, or a VM does not finish; 2 if it cannot set up. Each
# package runs once per kernel; only a kernel that dies before its init
# runs (a TCG boot Oops: no test has run) is booted again, twice at most.
#
#   usage: bash .ci/kernels.sh [--kernels '5.10 6.1 6.12'] [--pkgs 'reg task']
#                [--run REGEX] [--skip REGEX] [--timeout 8m] [--budget 30m]
#                [--jobs N] [--tcg single|multi] [--keep]
#     --kernels  series (newest linux-image-<series>.*-amd64 of bullseye,
#                bookworm, trixie and their -security suites) or package names
#     --pkgs     packages ('.' is the root; default: every package with tests)
#     --run, --skip  passed as -test.run, -test.skip
#     --timeout  -test.timeout of each test binary (default 12m: task's runs
#                both backends); a binary still
#                alive 2 minutes later is killed
#     --budget   wall-clock limit of the whole run (default 30m); a VM gets the
#                time left divided by the rounds of --jobs VMs still to finish
#                (running or to start), is killed when that runs out, and does
#                not start with < 2m
#     --jobs     VMs at a time, -smp 2 each (default: one per host CPU under
#                single-threaded TCG, up to one per kernel; under KVM or
#                multi-threaded TCG, all if nproc >= 4, else 1)
#     --tcg      single (default): both vCPUs of a VM take turns on one host
#                thread, so VMs run side by side, one per host CPU (the
#                matrix: 738-785 s on 2 CPUs against 1006 s for one
#                multi-threaded VM at a time); multi: a host thread per vCPU.
#                Under either, qemu 7.2's TCG with -cpu max now and then
#                crashes the 6.12 guest with impossible CPU state (EFLAGS with
#                reserved bits 22-31 set in the saved frame): an emulator
#                fault, which still fails the run
#     --keep     keep the work directory (initramfs, unpacked kernels)
#   Output: per kernel the release, the polled device, `uringctl probe`, a table
#   PACKAGE RESULT PASS FAIL SKIP SECS (tests and subtests; RESULT is ok, FAIL,
#   TIMEOUT: -test.timeout fired, KILLED: still alive 2m later, NOEND: the VM
#   stopped while it ran, NORUN: the VM stopped before it), each failing test's
#   output, the goroutine dump of a timed-out binary and the kernel's BUG/WARNING
#   lines; then one table for all kernels. $OUT_DIR (default out/) receives
#   kernels-summary.txt (counts per kernel and package, key=value) and
#   kernels/<series>/{report.txt,tests.log,console.log}.
#
# How: Debian's linux-image .debs are fetched with a private apt state
# (~/.cache/uring-kernels; the host's sources give the mirror, else
# deb.debian.org; DEBIAN_MIRROR, DEBIAN_SECURITY_MIRROR override) and unpacked,
# never installed. Each package is built once with `go test -c` (CGO_ENABLED=0)
# into one initramfs with busybox-static, uringctl and the package directories
# (tests open testdata/ and their sources); each kernel appends its null_blk and
# nvme modules as a second cpio. qemu (TCG unless KVM is usable) emulates an
# NVMe disk with nvme.poll_queues=2 and null_blk gets poll_queues=2 where the
# module has it (5.13+), so an IOPOLL device exists. .ci/kernels/init is PID 1.
# Missing host tools (qemu-system-x86, cpio, kmod, xz-utils, zstd) are
# installed with apt-get --no-install-recommends (root only).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH:/usr/sbin:/sbin"

die() { echo "kernels: $*" >&2; exit 2; }
log() { echo "kernels: $*" >&2; }
first() { local f; for f; do [ ! -e "$f" ] || { echo "$f"; return; }; done; } # first path that exists

kernels='5.10 6.1 6.12' pkgs='' runre='' skipre='' ttimeout=12m budget=30m jobs='' tcg=single keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=$2; shift 2 ;;
	--pkgs) pkgs=$2; shift 2 ;;
	--run) runre=$2; shift 2 ;;
	--skip) skipre=$2; shift 2 ;;
	--timeout) ttimeout=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--tcg) tcg=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
# a Go duration (8m, 1h30m, 90s) in whole seconds
dursecs() {
	local d=$1 t=0 n u
	[[ $d =~ ^([0-9]+[hms])+$ ]] || return 1
	while [ -n "$d" ]; do
		n=${d%%[hms]*}; d=${d#"$n"}; u=${d:0:1}; d=${d:1}
		case $u in h) t=$((t + n * 3600)) ;; m) t=$((t + n * 60)) ;; s) t=$((t + n)) ;; esac
	done
	echo "$t"
}
tsecs=$(dursecs "$ttimeout") || die "--timeout: want a duration like 8m or 90s, not $ttimeout"
bsecs=$(dursecs "$budget") || die "--budget: want a duration like 35m, not $budget"
read -ra klist <<<"$kernels"
[ ${#klist[@]} -gt 0 ] || die "--kernels is empty"
[ -z "$jobs" ] || [[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a number"
case $tcg in single|multi) ;; *) die "--tcg wants single or multi, not $tcg" ;; esac
t0=$(date +%s) deadline=$(($(date +%s) + bsecs))
outd=${OUT_DIR:-out}
mkdir -p "$outd"
outd=$(cd "$outd" && pwd)

# --- host tools ------------------------------------------------------------
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v cpio >/dev/null || need+=(cpio)
command -v modinfo >/dev/null || need+=(kmod)
command -v xz >/dev/null || need+=(xz-utils)
command -v zstd >/dev/null || need+=(zstd)
command -v apt-get >/dev/null || die "needs a Debian host (apt-get)"
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing ${need[*]}: apt-get install --no-install-recommends ${need[*]}"
	log "installing ${need[*]}"
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" ||
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"; }
	} >&2 || die "apt-get install ${need[*]} failed"
fi
command -v go >/dev/null || die "go not found"

# --- private apt state --------------------------------------------------------
# Own sources, lists and status; the host's apt.conf.d (proxies) still applies,
# its sources and lists are read, never changed.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/uring-kernels
aptd=$cache/apt debd=$cache/debs
mkdir -p "$aptd"/{lists/partial,archives/partial,sources.list.d,preferences.d} "$debd"
[ -f "$aptd/status" ] || : >"$aptd/status"
# "archive URI" and "security URI" of the Debian suites in the host's sources
host_mirrors() {
	local re='^(bullseye|bookworm|trixie|forky|sid|oldstable|stable|testing|unstable)(-[a-z]+)?$'
	awk -v re="$re" 'BEGIN { RS = ""; FS = "\n" }
	{ u = s = ""
	  for (i = 1; i <= NF; i++) {
		if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u) }
		if ($i ~ /^Suites:/) { s = $i; sub(/^Suites:[ \t]*/, "", s) }
	  }
	  nu = split(u, U, " "); ns = split(s, S, " ")
	  for (j = 1; j <= ns; j++) if (S[j] ~ re) for (k = 1; k <= nu; k++)
		print (S[j] ~ /-security$/ ? "security" : "archive"), U[k] }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true
	awk -v re="$re" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
		if ($(i + 1) ~ re) print ($(i + 1) ~ /-security$/ ? "security" : "archive"), $i }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true
}
hm=$(host_mirrors)
mirror=${DEBIAN_MIRROR:-$(awk '$1 == "archive" { print $2; exit }' <<<"$hm")}
mirror=${mirror:-http://deb.debian.org/debian}
secmirror=${DEBIAN_SECURITY_MIRROR:-$(awk '$1 == "security" { print $2; exit }' <<<"$hm")}
[ -n "$secmirror" ] || case $mirror in */debian|*/debian/) secmirror=${mirror%/}-security ;; esac
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
sources=$(for s in bullseye bookworm trixie; do
	echo "deb [signed-by=$keyring] $mirror $s main"
	[ -z "$secmirror" ] || echo "deb [signed-by=$keyring] $secmirror $s-security main"
done)
refresh=0
if [ "$(cat "$aptd/sources.list" 2>/dev/null)" != "$sources" ]; then
	echo "$sources" >"$aptd/sources.list"; refresh=1
fi
[ -n "$(find "$aptd/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 -print -quit)" ] || refresh=1
aptopts=(-o Dir::State="$aptd" -o Dir::State::Lists="$aptd/lists" -o Dir::State::status="$aptd/status"
	-o Dir::Cache="$aptd" -o Dir::Cache::archives="$aptd/archives"
	-o Dir::Etc::SourceList="$aptd/sources.list" -o Dir::Etc::SourceParts="$aptd/sources.list.d"
	-o Dir::Etc::Preferences="$aptd/preferences" -o Dir::Etc::PreferencesParts="$aptd/preferences.d"
	-o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Acquire::Languages=none)
for t in DEP-11 DEP-11-icons DEP-11-icons-small DEP-11-icons-hidpi; do
	aptopts+=(-o "Acquire::IndexTargets::deb::$t::DefaultEnabled=false")
done
[ "$(id -u)" != 0 ] || aptopts+=(-o APT::Sandbox::User=root)
papt() { apt-get "${aptopts[@]}" "$@"; }
pcache() { apt-cache "${aptopts[@]}" "$@"; }
if [ $refresh = 1 ]; then
	log "apt-get update ($mirror${secmirror:+, $secmirror}; lists in $aptd)"
	papt -q update >"$aptd/update.log" 2>&1 || {
		grep -E '^(W|E|Err):' "$aptd/update.log" >&2 || tail -5 "$aptd/update.log" >&2
		[ -n "$(find "$aptd/lists" -maxdepth 1 -name '*_Packages*' -print -quit)" ] ||
			die "apt-get update failed and there are no lists"
		log "apt-get update failed in part; using the lists there are"
	}
fi
# series (5.10) or package name -> package name
resolve() {
	case $1 in
	linux-image-*) echo "$1" ;;
	[0-9]*.[0-9]*)
		pcache search --names-only "^linux-image-${1//./\\.}\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64\$" |
			awk '{ print $1 }' | sort -V | tail -1 ;;
	esac
}
candidate() { pcache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'; }
# package -> its .deb in the cache, downloaded the first time
fetchdeb() {
	local pkg=$1 ver f
	ver=$(candidate "$pkg"); [ -n "$ver" ] && [ "$ver" != "(none)" ] || return 1
	f=$debd/${pkg}_${ver//:/%3a}_amd64.deb
	if [ ! -s "$f" ]; then
		log "downloading $pkg $ver"
		(cd "$debd" && papt -q download "$pkg=$ver" >/dev/null 2>"$debd/download.err") ||
			{ cat "$debd/download.err" >&2; return 1; }
	fi
	[ -s "$f" ] && echo "$f"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/uring-kernels.XXXXXX")
cleanup() {
	local f
	for f in "$work"/k*/vm.pid; do [ ! -f "$f" ] || kill "$(cat "$f")" 2>/dev/null || true; done
	if [ $keep = 1 ]; then log "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

kpkg=() kdeb=()
for k in "${klist[@]}"; do
	p=$(resolve "$k")
	[ -n "$p" ] || die "no linux-image for $k in bullseye, bookworm or trixie"
	d=$(fetchdeb "$p") || die "download of $p failed"
	kpkg+=("$p") kdeb+=("$d")
done
bbdeb=$(fetchdeb busybox-static) || die "download of busybox-static failed"

# --- test binaries and the shared initramfs ------------------------------------------
module=$(go list -m)
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,k/bin,k/pkg}
dpkg-deb -x "$bbdeb" "$work/bb"
bb=$(first "$work"/bb/bin/busybox "$work"/bb/usr/bin/busybox)
[ -n "$bb" ] || die "busybox-static has no busybox"
cp "$bb" "$root/bin/busybox"
if [ -n "$pkgs" ]; then
	list=$(for p in $pkgs; do go list "./${p#./}"; done)
else
	list=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)
fi
ids=() labels=()
for ip in $list; do
	rel=${ip#"$module"}; rel=${rel#/}
	id=$(tr / _ <<<"${rel:-root}")
	CGO_ENABLED=0 go test -c -o "$root/k/bin/$id.test" "./$rel" >&2 || die "go test -c ./$rel failed"
	[ -f "$root/k/bin/$id.test" ] || continue # no tests after all
	mkdir -p "$root/k/pkg/$id"
	find "./$rel" -maxdepth 1 -type f -exec cp {} "$root/k/pkg/$id/" \;
	[ ! -d "./$rel/testdata" ] || cp -r "./$rel/testdata" "$root/k/pkg/$id/"
	ids+=("$id") labels+=("${rel:-.}")
done
[ ${#ids[@]} -gt 0 ] || die "no test binaries"
CGO_ENABLED=0 go build -o "$root/k/bin/uringctl" ./cmd/uringctl || die "go build ./cmd/uringctl failed"
cp .ci/kernels/init "$root/init"
chmod +x "$root/init"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n' >"$root/etc/hosts"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
printf '%s\n' "${ids[@]}" >"$root/k/packages"
echo "-test.v=test2json -test.short -test.timeout $ttimeout" >"$root/k/targs"
echo $((tsecs + 120)) >"$root/k/killsecs"
printf '%s\n' "$runre" >"$root/k/run.re"
printf '%s\n' "$skipre" >"$root/k/skip.re"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/base.cpio"
log "initramfs $(du -h "$work/base.cpio" | cut -f1): ${#ids[@]} packages; built in $(($(date +%s) - t0))s"

if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then
	accel=kvm qaccel=(-enable-kvm -cpu host) accdesc=kvm
else
	accel=tcg qaccel=(-accel "tcg,thread=$tcg" -cpu max) accdesc="tcg thread=$tcg"
fi
if [ -z "$jobs" ]; then
	if [ $accel = tcg ] && [ $tcg = single ]; then
		jobs=$(nproc); [ "$jobs" -le ${#klist[@]} ] || jobs=${#klist[@]}
	else
		jobs=1; [ "$(nproc)" -lt 4 ] || jobs=${#klist[@]}
	fi
fi

# --- one kernel -------------------------------------------------------------------------
# modules KX KW: the null_blk and nvme modules (and what they depend on) of the
# kernel unpacked in KX, as KW/m/k/{mod/,modules,polldevs}; kargs for built-ins
modules() {
	local kx=$1 kw=$2 md
	md=$(first "$kx"/lib/modules/* "$kx"/usr/lib/modules/*)
	mkdir -p "$kw/m/k/mod"; : >"$kw/m/k/modules"; : >"$kw/m/k/polldevs"
	echo "$accel" >"$kw/m/k/accel" # init: URING_TEST_EMULATED unless kvm
	kargs=' nvme.poll_queues=2'
	declare -A seen=()
	addmod() { # name args: unpacked into m/k/mod, dependencies first
		local args=$2 f out d have a=${1//-/_} b=${1//_/-}
		[ -z "${seen[$a]:-}" ] || return 0; seen[$a]=1
		f=$(find "$md" \( -name "$a.ko*" -o -name "$b.ko*" \) -print -quit)
		[ -n "$f" ] || return 1
		out=$kw/m/k/mod/$a.ko
		case $f in
		*.ko) cp "$f" "$out" ;; *.ko.xz) xz -dc "$f" >"$out" ;;
		*.ko.zst) zstd -qdc "$f" >"$out" ;; *.ko.gz) gzip -dc "$f" >"$out" ;;
		esac
		for d in $(modinfo -F depends "$out" | tr , ' '); do addmod "$d" '' || return 1; done
		# only the parameters this kernel's module has
		have=" $(modinfo -F parm "$out" | cut -d: -f1 | xargs) "
		args=$(for p in $args; do [[ $have != *" ${p%%=*} "* ]] || echo "$p"; done | xargs)
		echo "$a.ko $args" >>"$kw/m/k/modules"
	}
	isbuiltin() { grep -qE "/($1|${1//_/-})\.ko\$" "$md/modules.builtin" 2>/dev/null; }
	[ -n "$md" ] || return 0
	if addmod null_blk 'nr_devices=1 queue_mode=2 memory_backed=1 gb=1 poll_queues=2 submit_queues=2'; then
		echo "null_blk nullb0" >>"$kw/m/k/polldevs"
	elif isbuiltin null_blk; then
		kargs="$kargs null_blk.nr_devices=1 null_blk.queue_mode=2 null_blk.poll_queues=2 null_blk.submit_queues=2"
		echo "null_blk nullb0" >>"$kw/m/k/polldevs"
	fi
	addmod nvme 'poll_queues=2' || isbuiltin nvme || log "${kx##*/}: no nvme driver"
	echo "nvme nvme0n1" >>"$kw/m/k/polldevs"
}

# runvm I END: boots kernel I with the suite, killed at time END if still
# running; its output lands in $work/kI
runvm() {
	local i=$1 end=$2 kw=$work/k$1 name=${klist[$1]} kx vmlinuz left n last=0 s
	mkdir -p "$kw"
	kx=$kw/x
	dpkg-deb -x "${kdeb[$i]}" "$kx"
	vmlinuz=$(first "$kx"/boot/vmlinuz-*)
	: >"$kw/tests.log"; : >"$kw/console.log"
	[ -n "$vmlinuz" ] || { echo "no /boot/vmlinuz-* in ${kpkg[$i]}" >"$kw/error"; return; }
	modules "$kx" "$kw"
	(cd "$kw/m" && find k | cpio -o -H newc --quiet) | cat "$work/base.cpio" - >"$kw/initramfs.cpio"
	truncate -s 1G "$kw/nvme.img"
	s=$(date +%s)
	# A kernel that dies before its init runs (an Oops in the kernel's own
	# boot-time text patching under TCG: seen once, 6.12 at 3 s) is booted
	# again, up to twice: no package had started, so no test runs twice. A
	# VM that reached init is never booted again.
	for attempt in 1 2 3; do
		left=$((end - $(date +%s)))
		[ $left -ge 120 ] || { echo "not started: its share of --budget $budget is spent" >"$kw/error"; return; }
		log "$name: booting $(basename "$vmlinuz") ($accdesc, -smp 2, limit ${left}s)"
		: >"$kw/tests.log"; : >"$kw/console.log"
		timeout -k 10 $left qemu-system-x86_64 "${qaccel[@]}" -smp 2 -m 4G -nodefaults -no-user-config \
			-display none -nic none -no-reboot \
			-drive "file=$kw/nvme.img,if=none,id=nv0,format=raw" -device nvme,serial=uring,drive=nv0 \
			-kernel "$vmlinuz" -initrd "$kw/initramfs.cpio" \
			-append "console=ttyS0 panic=-1 quiet loglevel=5$kargs" \
			-serial "file:$kw/console.log" -serial "file:$kw/tests.log" &
		echo $! >"$kw/vm.pid"
		while kill -0 "$(cat "$kw/vm.pid")" 2>/dev/null; do
			sleep 5
			n=$(grep -ac '^KT-END' "$kw/tests.log" || true)
			if [ "$n" -gt "$last" ]; then
				grep -a '^KT-END' "$kw/tests.log" | tail -n +$((last + 1)) | sed "s/^KT-END /kernels: $name: /" >&2
				last=$n
			fi
		done
		wait "$(cat "$kw/vm.pid")" || true
		grep -aq '^KT-KERNEL' "$kw/tests.log" && break
		cp "$kw/console.log" "$kw/console.boot$attempt.log"
		log "$name: the kernel died before its init ran (boot $attempt; console in console.boot$attempt.log)$([ $attempt -lt 3 ] && echo ': booting again')"
	done
	rm -f "$kw/vm.pid" "$kw/nvme.img"
	[ $keep = 1 ] || rm -rf "$kx" "$kw/initramfs.cpio"
	echo $(($(date +%s) - s)) >"$kw/secs"
	log "$name: VM done in $(cat "$kw/secs")s"
}

# report I: prints kernel I's report; writes $work/kI/{result,summary}
report() {
	local i=$1 kw=$work/k$1 name=${klist[$1]} T rel polled j id lab sec end rc res p f s bad=0
	T=$kw/tests.txt
	tr -d '\r' <"$kw/tests.log" >"$T"
	rel=$(sed -n 's/^KT-KERNEL \([^ ]*\).*/\1/p' "$T")
	echo
	echo "=== kernel $name: ${rel:-did not boot} (${kpkg[$i]} $(candidate "${kpkg[$i]}"), $accdesc, $(cat "$kw/secs" 2>/dev/null || echo 0)s)"
	[ ! -f "$kw/error" ] || echo "  $(cat "$kw/error")"
	echo "  modules: $(sed -n 's/^KT-MOD ok \([^ ]*\)\.ko.*/\1/p' "$T" | xargs)"
	grep -a '^KT-MOD FAIL' "$T" | sed 's/^KT-MOD /  insmod /' || true
	sed -n 's/^KT-MOD ok \(null_blk\|nvme\)\.ko \(..*\)/  \1: \2/p' "$T"
	grep -a '^KT-POLLDEV ' "$T" | sed 's/^KT-POLLDEV /  /' || true
	polled=$(sed -n 's/^KT-POLLED //p' "$T")
	echo "  polled device: URING_TEST_POLLED_DEV=${polled:-none}"
	if grep -aq '^KT-PROBE-BEGIN' "$T"; then
		echo "--- uringctl probe"
		sed -n '/^KT-PROBE-BEGIN/,/^KT-PROBE-END/{/^KT-PROBE-BEGIN/d;/^KT-PROBE-END rc=0$/d;p}' "$T"
	fi
	echo "--- packages (PASS FAIL SKIP count tests and subtests)"
	printf '%-20s %-7s %5s %5s %5s %5s\n' PACKAGE RESULT PASS FAIL SKIP SECS
	: >"$kw/result"
	for j in "${!ids[@]}"; do
		id=${ids[$j]} lab=${labels[$j]}
		sed -n "/^KT-BEGIN $id\$/,/^KT-END $id /{/^KT-/d;p}" "$T" >"$kw/$id.log"
		go tool test2json -p "$lab" <"$kw/$id.log" >"$kw/$id.json" 2>/dev/null || true
		p=$(grep -c '^{"Action":"pass","Package":"[^"]*","Test":' "$kw/$id.json" || true)
		f=$(grep -c '^{"Action":"fail","Package":"[^"]*","Test":' "$kw/$id.json" || true)
		s=$(grep -c '^{"Action":"skip","Package":"[^"]*","Test":' "$kw/$id.json" || true)
		end=$(grep -a "^KT-END $id " "$T" || true)
		sec=- res=NORUN
		grep -aqx "KT-BEGIN $id" "$T" && res=NOEND
		if [ -n "$end" ]; then
			rc=${end#*rc=}; rc=${rc%% *}; sec=${end##*secs=}
			if grep -aq '^panic: test timed out' "$kw/$id.log"; then res=TIMEOUT
			elif [ "$rc" = 137 ]; then res=KILLED
			elif [ "$rc" != 0 ]; then res=FAIL
			else res=ok; fi
		fi
		[ $res = ok ] || bad=1
		printf '%-20s %-7s %5s %5s %5s %5s\n' "$lab" $res "$p" "$f" "$s" "$sec"
		echo "pkg $name $lab result=$res pass=$p fail=$f skip=$s secs=$sec" >>"$kw/result"
	done
	for j in "${!ids[@]}"; do # a subshell: its output is also kept for the end
		id=${ids[$j]} lab=${labels[$j]}
		res=$(awk -v l="$lab" '$3 == l { sub(/result=/, "", $4); print $4 }' "$kw/result")
		[ "$res" != ok ] && [ ! -f "$kw/error" ] || continue
		echo "--- $lab: $res"
		awk -v pkg="$lab" -v max=40 -f .ci/kernels/failures.awk "$kw/$id.json" >"$kw/$id.fail"
		cat "$kw/$id.fail"
		if [ $res = NORUN ]; then
			echo "    not started: the VM stopped before"
		elif [ $res = TIMEOUT ]; then
			echo "    still running: $(sed -n '/^panic: test timed out/,/^$/s/^\t\t//p' "$kw/$id.log" | xargs)"
			# the panic, then the goroutines with a frame of the module (40 lines)
			sed -n '/^panic: test timed out/,$p' "$kw/$id.log" | tr -d '\026' |
				awk -v mod="$module" 'BEGIN { RS = ""; FS = "\n" }
				NR == 1 { print; print ""; next }
				{ for (i = 1; i <= NF; i++) if (index($i, mod) && $i !~ /testutil\.Main|\.TestMain\(|_testmain\.go/) { print; print ""; break } }' |
				head -40 | sed 's/^/    /'
		elif [ ! -s "$kw/$id.fail" ] || [ $res != FAIL ]; then
			# cut off (NOEND, KILLED), or no failing test to show (a panic, TestMain's leak check)
			echo "    last lines of its output:"
			tr -d '\026' <"$kw/$id.log" | grep -av '^=== \(PAUSE\|CONT\|NAME\)' | tail -25 | sed 's/^/    /'
		fi
	done | tee "$kw/failures.txt"
	tr -d '\r' <"$kw/console.log" >"$kw/console.txt"
	if grep -aqE 'BUG:|WARNING:|Oops|Kernel panic|INFO: task .* blocked|rcu: .* stall' "$kw/console.txt"; then
		echo "--- kernel BUG/WARNING lines on the console"
		grep -aE -A6 'BUG:|WARNING:|Oops|Kernel panic|INFO: task .* blocked|rcu: .* stall' "$kw/console.txt" | head -80 | sed 's/^/    /'
		# a CPU cannot hold EFLAGS bits 22-31: such a frame is the emulator's fault
		{ grep -aoE 'EFLAGS: [0-9a-f]+' "$kw/console.txt" || true; } | sort -u | while read -r _ f; do
			[ $((0x$f & 0xffc00000)) -eq 0 ] || echo "    emulator fault: EFLAGS $f has reserved bits 22-31 set, which no x86 CPU can hold"
		done
	fi
	if [ -f "$kw/error" ]; then bad=1
	elif ! grep -aq '^KT-DONE' "$T"; then
		echo "--- the VM did not finish (crash, hang or --budget); console tail:"
		grep -av '^KT-' "$kw/console.txt" | tail -25 | sed 's/^/    /'
		bad=1
	fi
	awk -v k="$name" -v rel="${rel:--}" -v pkg="${kpkg[$i]}" -v pol="${polled:-none}" \
		-v secs="$(cat "$kw/secs" 2>/dev/null || echo 0)" -v bad=$bad '
		{ for (i = 4; i <= NF; i++) { split($i, kv, "="); c[kv[1]] += kv[2] }
		  n++; if ($4 != "result=ok") nb++ }
		END { printf "kernel %s release=%s image=%s result=%s pass=%d fail=%d skip=%d packages=%d failed=%d polled=%s secs=%d\n",
			k, rel, pkg, bad ? "FAIL" : "ok", c["pass"], c["fail"], c["skip"], n, nb, pol, secs }' \
		"$kw/result" >"$kw/summary"
	mkdir -p "$outd/kernels/$name"
	cp "$kw/tests.txt" "$outd/kernels/$name/tests.log"
	cp "$kw/console.txt" "$outd/kernels/$name/console.log"
	return $bad
}

# --- the matrix ----------------------------------------------------------------------
rm -rf "$outd/kernels" "$outd/kernels-summary.txt"
# each VM may use the time left shared by the rounds of --jobs VMs still to
# come, counting those still running, so that a hang on one kernel does not
# leave the next ones no time (and VMs started together get the same share)
running=()
for i in "${!klist[@]}"; do
	while [ ${#running[@]} -ge "$jobs" ]; do
		wait -n || true
		for j in "${!running[@]}"; do kill -0 "${running[$j]}" 2>/dev/null || unset 'running[j]'; done
	done
	rounds=$(((${#running[@]} + ${#klist[@]} - i + jobs - 1) / jobs))
	runvm "$i" $(($(date +%s) + (deadline - $(date +%s)) / rounds)) &
	running+=($!)
done
wait
bad=0
for i in "${!klist[@]}"; do
	mkdir -p "$outd/kernels/${klist[$i]}"
	report "$i" | tee "$outd/kernels/${klist[$i]}/report.txt" || bad=1
done

echo
echo "=== all kernels (FAIL n: failing leaf tests; $(($(date +%s) - t0))s in all)"
printf '%-20s' PACKAGE; for k in "${klist[@]}"; do printf ' %-22s' "$k"; done; echo
for j in "${!ids[@]}"; do
	printf '%-20s' "${labels[$j]}"
	for i in "${!klist[@]}"; do
		c=$(awk -v l="${labels[$j]}" '$3 == l { sub(/result=/, "", $4); print $4 }' "$work/k$i/result")
		[ "$c" != FAIL ] || c="FAIL $(grep -c '^--- ' "$work/k$i/${ids[$j]}.fail" 2>/dev/null || true)"
		printf ' %-22s' "${c:-NORUN}"
	done
	echo
done
for key in release pass fail skip secs; do
	printf '%-20s' "($key)"
	for i in "${!klist[@]}"; do printf ' %-22s' "$(sed -n "s/.* $key=\([^ ]*\).*/\1/p" "$work/k$i/summary")"; done
	echo
done
{
	echo "# .ci/kernels.sh $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null) timeout=$ttimeout run=${runre:-all} skip=${skipre:-none}"
	for i in "${!klist[@]}"; do cat "$work/k$i/summary"; done
	for i in "${!klist[@]}"; do cat "$work/k$i/result"; done
	echo "total result=$([ $bad = 0 ] && echo ok || echo FAIL) kernels=${#klist[@]} secs=$(($(date +%s) - t0))"
} >"$outd/kernels-summary.txt"
echo "summary: $outd/kernels-summary.txt"
# the failures again, last: a log cut to its head and tail still shows them
if [ $bad != 0 ]; then
	echo
	echo "=== failures again (each kernel's report is above and in $outd/kernels/)"
	for i in "${!klist[@]}"; do
		[ -s "$work/k$i/failures.txt" ] || [ -f "$work/k$i/error" ] || continue
		echo "--- kernel ${klist[$i]}"
		[ ! -f "$work/k$i/error" ] || echo "  $(cat "$work/k$i/error")"
		head -120 "$work/k$i/failures.txt" 2>/dev/null || true
	done
fi
exit $bad
