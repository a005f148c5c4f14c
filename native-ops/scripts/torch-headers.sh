#!/usr/bin/env bash
# Finds LibTorch C++ headers for an op library's build, without installing anything system-wide.
# Usage: torch-headers.sh DEST [VERSION]   VERSION: the libtorch the harness runs on (default 2.13.0)
#        torch-headers.sh --mirror         prints the Debian archive this machine's apt uses, and exits
# Writes DEST/include-dir.txt with the include directory to use (the folder holding torch/csrc/stable/library.h).
# The sources, in this order; the first that gives headers is used and one line says which:
#   1. TORCH_INCLUDE_DIR, as it is (set but without the headers: an error, not a fall-through).
#   2. The PyTorch wheel of VERSION: `pip download torch==VERSION --no-deps`, from the index pip is configured
#      with (pip.conf, PIP_INDEX_URL, ...); its torch/include holds exactly VERSION's headers, classic ones too.
#      OPCHECK4J_PIP names the pip command (default: pip3, else pip, else python3 -m pip); "none" skips this.
#   3. The LibTorch zip of VERSION: LIBTORCH_URL, a URL (fetched with curl or wget) or a local file; its
#      libtorch/include is used. No download host is named here: unset, this source is not tried.
#   4. (the last fallback: another release's headers) libtorch-dev from apt, downloaded with a private apt state and unpacked with dpkg -x, from the archive the
#      machine's apt is configured with (/etc/apt/sources.list, sources.list.d/*.list and deb822 *.sources; a
#      local mirror or proxy is used as it is): Debian's sid from a Debian archive, else Ubuntu's from the
#      configured Ubuntu suite, when its version is at least VERSION's major.minor (the stable ABI is pinned to
#      it). OPCHECK4J_APT_DIR replaces /etc/apt. Its headers are not the runtime's own: stable-ABI code built
#      with them loads (TORCH_TARGET_VERSION pins it), classic code may not, and one line says so.
# A source already unpacked in DEST for VERSION is reused. Where no source gives headers, one line lists what
# was tried and why each did not, and the exit status is 1.
set -euo pipefail
apt_dir=${OPCHECK4J_APT_DIR:-/etc/apt}
marker=torch/csrc/stable/library.h

# The archive to take libtorch-dev from, as "KIND|URI|SIGNED-BY|SUITE" (SIGNED-BY may be empty):
# the first Debian archive among the enabled "deb" sources, else the first Ubuntu one. A source is Debian's
# when its URI path ends in /debian or its suite is a Debian suite, Ubuntu's when its URI path ends in /ubuntu
# or /ubuntu-ports or its suite is an Ubuntu release; security archives do not carry libtorch-dev and are skipped.
apt_archive() {
  local files=()
  [ -f "$apt_dir/sources.list" ] && files+=("$apt_dir/sources.list")
  for f in "$apt_dir"/sources.list.d/*.list "$apt_dir"/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk '
    function kind(uri, suite) {
      if (uri ~ /security/ || suite ~ /-security$/) return ""
      if (uri ~ /\/debian\/?$/) return "debian"
      if (uri ~ /\/ubuntu(-ports)?\/?$/) return "ubuntu"
      if (suite ~ /^(sid|unstable|testing|stable|oldstable|trixie|bookworm|bullseye|buster|forky|duke)(-updates|-backports)?$/) return "debian"
      if (suite ~ /^(focal|jammy|noble|oracular|plucky|questing|resolute)(-updates|-backports)?$/) return "ubuntu"
      return ""
    }
    function consider(uri, suites, signed,   n, s, i, k) {
      n = split(suites, s, /[ \t]+/)
      for (i = 1; i <= n; i++) {
        if (s[i] == "") continue
        k = kind(uri, s[i])
        if (k == "debian") { print "debian|" uri "|" signed "|sid"; done = 1; exit }
        if (k == "ubuntu" && ubuntu == "") { sub(/-(updates|backports)$/, "", s[i]); ubuntu = "ubuntu|" uri "|" signed "|" s[i] }
      }
    }
    function flush(   n, u, i) {
      if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[Nn]o/) {
        n = split(uris, u, /[ \t]+/)
        for (i = 1; i <= n; i++) if (u[i] != "") consider(u[i], suites, signed)
      }
      types = ""; uris = ""; suites = ""; signed = ""; enabled = ""
    }
    FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
    /^[ \t]*#/ { next }
    deb822 && /^[ \t]*$/ { flush(); next }
    deb822 {
      key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
      if (key == "types") types = val; else if (key == "uris") uris = val
      else if (key == "suites") suites = val; else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = val
      next
    }
    $1 == "deb" {
      line = $0; opt_signed = ""
      if (match(line, /\[[^]]*\]/)) {
        opt = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
        if (match(opt, /signed-by=[^ \t]+/)) opt_signed = substr(opt, RSTART + 10, RLENGTH - 10)
      }
      split(line, w, /[ \t]+/)
      consider(w[2], w[3], opt_signed)
    }
    END { if (!done) { flush(); if (!done && ubuntu != "") print ubuntu } }
  ' "${files[@]}"
}

if [ "${1:-}" = "--mirror" ]; then
  found=$(apt_archive)
  [ "${found%%|*}" = debian ] || { echo "torch-headers: no Debian source in $apt_dir/sources.list*" >&2; exit 1; }
  found=${found#*|}
  printf '%s\n' "${found%%|*}"
  exit 0
fi

dest=${1:?usage: torch-headers.sh DEST [VERSION]}
version=${2:-2.13.0}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# Records DIR as the headers of this build, from the source described by $2, and says so in one line.
use() {
  echo "$1" > "$dest/include-dir.txt"
  printf '%s\t%s\n' "$version" "$2" > "$dest/source.txt"
  echo "torch-headers: using $2: $1"
  exit 0
}

# A tool's output in one line: its first error line (pip's and apt's start with "ERROR:" or "E:"), else its last line.
last_line() {
  { grep -m 1 -E '^(ERROR|E):' "$1" 2>/dev/null || grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1; } | cut -c1-200 || true
}

# Extracts the entries under PREFIX/ of the zip ARCHIVE (a wheel is a zip) into OUT, with the first tool found.
extract() {
  local archive=$1 prefix=$2 out=$3
  rm -rf "$out" && mkdir -p "$out"
  if command -v unzip >/dev/null; then
    unzip -q -o "$archive" "$prefix/*" -d "$out"
  elif command -v python3 >/dev/null; then
    python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(sys.argv[3], [n for n in z.namelist() if n.startswith(sys.argv[2] + "/")])' "$archive" "$prefix" "$out"
  elif command -v jar >/dev/null; then
    (cd "$out" && jar xf "$archive" "$prefix")
  else
    echo "no unzip, python3 or jar to open it"
    return 1
  fi
}

tried=()

# 1. TORCH_INCLUDE_DIR
if [ -n "${TORCH_INCLUDE_DIR:-}" ]; then
  [ -f "$TORCH_INCLUDE_DIR/$marker" ] && use "$TORCH_INCLUDE_DIR" "TORCH_INCLUDE_DIR"
  echo "torch-headers: TORCH_INCLUDE_DIR=$TORCH_INCLUDE_DIR has no $marker" >&2
  exit 1
fi
tried+=("TORCH_INCLUDE_DIR (not set)")

# What an earlier run unpacked here for this version.
if [ -f "$dest/source.txt" ] && [ -f "$dest/include-dir.txt" ]; then
  IFS=$'\t' read -r had_version had_source < "$dest/source.txt" || true
  had_dir=$(head -n 1 "$dest/include-dir.txt")
  if [ "$had_version" = "$version" ] && [ "$had_source" != TORCH_INCLUDE_DIR ] && [ -f "$had_dir/$marker" ]; then
    echo "torch-headers: reusing $had_source: $had_dir"
    exit 0
  fi
fi

# 2. the wheel
wheel_source() {
  local pip=()
  if [ -n "${OPCHECK4J_PIP:-}" ]; then
    [ "$OPCHECK4J_PIP" = none ] && { reason="OPCHECK4J_PIP=none"; return 1; }
    read -r -a pip <<< "$OPCHECK4J_PIP"
  elif command -v pip3 >/dev/null; then pip=(pip3)
  elif command -v pip >/dev/null; then pip=(pip)
  elif command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
  else reason="no pip3, pip or python3 -m pip"; return 1
  fi
  local work="$dest/wheel"
  rm -rf "$work" && mkdir -p "$work/download"
  attempted=1
  echo "torch-headers: pip download torch==$version --no-deps (${pip[*]}, from the index pip is configured with)"
  if ! "${pip[@]}" download "torch==$version" --no-deps --only-binary=:all: -d "$work/download" > "$work/pip.log" 2>&1; then
    reason="pip download torch==$version failed: $(last_line "$work/pip.log")"
    # "from versions: none" also when pip never reached its index: then say so
    local net
    net=$(grep -o -m 1 -E "(Failed to establish a new connection|SSLError|ProxyError)[^'\")]*" "$work/pip.log" | head -n 1 || true)
    [ -z "$net" ] || reason="$reason; pip could not reach its index: $net"
    return 1
  fi
  local whl
  whl=$(ls "$work"/download/torch-"$version"*.whl 2>/dev/null | head -n 1)
  [ -n "$whl" ] || { reason="pip download torch==$version gave no torch-$version*.whl"; return 1; }
  if ! extract "$whl" torch/include "$work/unpacked" > "$work/unzip.log" 2>&1; then
    reason="$(basename "$whl") has no torch/include ($(last_line "$work/unzip.log"))"; return 1
  fi
  rm -rf "$work/download"
  [ -f "$work/unpacked/torch/include/$marker" ] || { reason="$(basename "$whl") has no torch/include/$marker"; return 1; }
  source_name="the torch $version wheel ($(basename "$whl"))"
  include="$work/unpacked/torch/include"
}

# 3. the LibTorch zip
zip_source() {
  [ -n "${LIBTORCH_URL:-}" ] || { reason="LIBTORCH_URL not set"; return 1; }
  local work="$dest/libtorch-zip" archive
  rm -rf "$work" && mkdir -p "$work"
  case "$LIBTORCH_URL" in
    file://*) archive=${LIBTORCH_URL#file://} ;;
    *://*)
      archive="$work/libtorch.zip"
      attempted=1
      echo "torch-headers: downloading $LIBTORCH_URL (LIBTORCH_URL)"
      if command -v curl >/dev/null; then
        curl -fsSL -o "$archive" "$LIBTORCH_URL" > "$work/fetch.log" 2>&1 || { reason="curl $LIBTORCH_URL failed: $(last_line "$work/fetch.log")"; return 1; }
      elif command -v wget >/dev/null; then
        wget -q -O "$archive" "$LIBTORCH_URL" > "$work/fetch.log" 2>&1 || { reason="wget $LIBTORCH_URL failed: $(last_line "$work/fetch.log")"; return 1; }
      else
        reason="no curl or wget to fetch $LIBTORCH_URL"; return 1
      fi ;;
    *) archive=$LIBTORCH_URL ;;
  esac
  [ -f "$archive" ] || { reason="$archive does not exist"; return 1; }
  archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
  if ! extract "$archive" libtorch/include "$work/unpacked" > "$work/unzip.log" 2>&1; then
    reason="$LIBTORCH_URL has no libtorch/include ($(last_line "$work/unzip.log"))"; return 1
  fi
  rm -f "$work/libtorch.zip"
  [ -f "$work/unpacked/libtorch/include/$marker" ] || { reason="$LIBTORCH_URL has no libtorch/include/$marker"; return 1; }
  source_name="the LibTorch zip $LIBTORCH_URL"
  include="$work/unpacked/libtorch/include"
}

# 4. libtorch-dev from apt
apt_source() {
  for tool in apt-get dpkg dpkg-deb; do
    command -v "$tool" >/dev/null || { reason="no $tool"; return 1; }
  done
  local found kind mirror keyring suite components
  found=$(apt_archive)
  [ -n "$found" ] || { reason="no Debian or Ubuntu source in $apt_dir/sources.list*"; return 1; }
  IFS='|' read -r kind mirror keyring suite <<< "$found"
  case "$kind" in
    debian) components=main; [ -n "$keyring" ] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg ;;
    *) components="main universe"; [ -n "$keyring" ] || keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg ;;
  esac
  local from="${kind^} $suite at $mirror (from $apt_dir)"
  case "$keyring" in /*) ;; *) keyring=/usr/share/keyrings/$kind-archive-keyring.gpg ;; esac
  [ -f "$keyring" ] || { reason="$from: $keyring missing (package $kind-archive-keyring)"; return 1; }
  local work="$dest/apt"
  rm -rf "$work" "$dest/root" && mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  echo "deb [signed-by=$keyring] $mirror $suite $components" > "$work/sources.list"
  local opts=(-o "Dir::State::Lists=$work/lists" -o "Dir::Etc::SourceList=$work/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::Cache=$work/cache"
    -o "Acquire::Check-Valid-Until=false" -o "APT::Sandbox::User=root")
  attempted=1
  echo "torch-headers: apt-get download libtorch-dev from $from"
  apt-get "${opts[@]}" update -qq > "$work/apt.log" 2>&1 || { reason="$from: apt-get update failed: $(last_line "$work/apt.log")"; return 1; }
  grep -q '^\(W\|E\): ' "$work/apt.log" && { reason="$from: apt-get update: $(grep '^\(W\|E\): ' "$work/apt.log" | head -n 1 | cut -c1-200)"; return 1; }
  (cd "$work" && apt-get "${opts[@]}" download libtorch-dev) >> "$work/apt.log" 2>&1 || { reason="$from: $(last_line "$work/apt.log")"; return 1; }
  local deb v
  deb=$(ls "$work"/libtorch-dev_*.deb | head -n 1)
  v=$(dpkg-deb -f "$deb" Version)
  dpkg --compare-versions "$v" ge "${version%.*}" || { reason="$from: libtorch-dev $v is older than ${version%.*}"; return 1; }
  dpkg -x "$deb" "$dest/root"
  rm -rf "$work"
  [ -f "$dest/root/usr/include/$marker" ] || { reason="$from: $(basename "$deb") has no $marker"; return 1; }
  source_name="libtorch-dev $v from $from"
  include="$dest/root/usr/include"
  local have=${v%%+*} want=${version%.*}
  have=$(printf '%s' "$have" | cut -d. -f1-2)
  if [ "$have" != "$want" ]; then
    if [ "$have" = 2.14 ] && [ "$want" = 2.13 ]; then
      # measured on these machines (docs/op-library.md#headers): two symbols of autograd::Function are 2.14's alone
      echo "torch-headers: 2.14 headers for a 2.13 runtime: classic code loads unless it uses torch::autograd::Function (measured, not guaranteed)"
    else
      echo "torch-headers: $have headers for a $want runtime: stable-ABI code loads, classic TORCH_LIBRARY code may not (not measured)"
    fi
  fi
}

# A source that was attempted (it printed what it does) says in one line why it gave nothing.
for source in wheel_source:"the torch $version wheel" zip_source:"the LibTorch zip" apt_source:"libtorch-dev from apt"; do
  reason="" source_name="" include="" attempted=""
  if "${source%%:*}"; then
    use "$include" "$source_name"
  fi
  [ -z "$attempted" ] || echo "torch-headers: not ${source#*:}: $reason"
  tried+=("${source#*:} ($reason)")
done
list=$(printf '; %s' "${tried[@]}")
echo "torch-headers: no LibTorch headers found; tried ${list#; }. Set one of them (opcheck4j's docs/op-library.md, \"Headers\")" >&2
exit 1
