# Shared by bench/floor/run and bench/floor/instructions (sourced; needs ROOT and SCRIPTS set, and
# PGHOST/PGPORT/PGUSER exported).
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# Migrates database $1 with the sql/ of revision $2 ("" = the working tree), then runs the variant
# $3's copy of setup.sql: bench/floor/migrate, the one copy of that logic.
migrate() {
  "$ROOT/bench/floor/migrate" "$1" "$2" "$SCRIPTS/$3/setup.sql"
}

# Copies the workload scripts into $SCRIPTS/after (this checkout's) and, for revision $1 when
# given, $SCRIPTS/before (that revision's copy of each script, this checkout's where it had none).
copy_scripts() {
  mkdir -p "$SCRIPTS/after" "$SCRIPTS/before"
  cp "$ROOT"/bench/floor/*.sql "$SCRIPTS/after/"
  if [ -n "${1:-}" ]; then
    for f in "$ROOT"/bench/floor/*.sql; do
      f=$(basename "$f")
      git -C "$ROOT" show "$1:bench/floor/$f" > "$SCRIPTS/before/$f" 2>/dev/null || cp "$ROOT/bench/floor/$f" "$SCRIPTS/before/$f"
    done
  fi
}
