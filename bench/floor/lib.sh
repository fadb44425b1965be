# Shared by bench/floor/run and bench/floor/instructions (sourced; needs ROOT and SCRIPTS set, and
# PGHOST/PGPORT/PGUSER exported).
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# Migrates database $1 with the sql/ of revision $2 ("" = the working tree) in Flyway's order
# (versioned migrations by version, then repeatables by description), then runs the variant $3's
# copy of setup.sql.
migrate() {
  local db=$1 rev=$2 files
  if [ -z "$rev" ]; then files=$(cd "$ROOT/sql" && ls); else files=$(git -C "$ROOT" ls-tree --name-only "$rev" sql/ | sed 's|sql/||'); fi
  {
    echo "CREATE SCHEMA exactly;"
    for f in $(echo "$files" | grep '^V' | sort -t_ -k1.2 -n) $(echo "$files" | grep '^R__' | sort); do
      if [ -z "$rev" ]; then cat "$ROOT/sql/$f"; else git -C "$ROOT" show "$rev:sql/$f"; fi
      echo
    done
  } | psql_ "$db" 2>&1 | grep -v NOTICE || true
  psql_ "$db" -f "$SCRIPTS/$3/setup.sql" > /dev/null
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
