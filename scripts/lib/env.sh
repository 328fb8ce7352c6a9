# Sourced by scripts/serve and scripts/test: repo root, import paths, and an up-to-date .venv.
#
#   ensure_venv [EXTRA]   create .venv with python3 -m venv if missing, then pip-install the dependencies
#                         listed in pyproject.toml ([project] dependencies plus optional EXTRA, e.g. "dev").
#                         Skipped when pyproject.toml and the python are unchanged since the last install.
# `platform/` is a folder, not a package: it goes on PYTHONPATH so config/accounts/web import by name.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export PYTHONPATH="$ROOT:$ROOT/platform${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-config.settings}"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

ensure_venv() {
    local extra="${1:-}"
    if [ ! -x "$PY" ]; then
        echo "Creating virtual environment in .venv ..."
        python3 -m venv "$VENV"
    fi
    local stamp="$VENV/.gin-installed${extra:+-$extra}"
    local want
    want="$( (cat pyproject.toml; "$PY" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    echo "Installing dependencies from pyproject.toml${extra:+ (with [$extra])} ..."
    local reqs
    reqs="$(mktemp)"
    # Read the dependency lists straight from pyproject.toml: nothing to build, nothing installed as a package.
    "$PY" - "$extra" >"$reqs" <<'PYEOF'
import sys
import tomllib

with open("pyproject.toml", "rb") as fh:
    project = tomllib.load(fh)["project"]
deps = list(project["dependencies"])
if sys.argv[1]:
    deps += project["optional-dependencies"][sys.argv[1]]
print("\n".join(deps))
PYEOF
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$reqs"
    rm -f "$reqs"
    echo "$want" >"$stamp"
}

# is_loopback_host HOST: true when HOST is reachable from this machine only (127.x.y.z, ::1, localhost).
# scripts/serve turns Django's DEBUG off for any other bind address: debug pages list settings and every
# URL pattern, which must not be shown to the LAN.
is_loopback_host() {
    case "$1" in
        127.*|localhost|::1|\[::1\]) return 0 ;;
        *) return 1 ;;
    esac
}

# debug_default_for_host HOST: export DEBUG=0 when HOST is not loopback and DEBUG is not already set.
debug_default_for_host() {
    if [ -z "${DEBUG+set}" ] && ! is_loopback_host "$1"; then
        export DEBUG=0
    fi
}
