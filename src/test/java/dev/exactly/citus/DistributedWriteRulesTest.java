package dev.exactly.citus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.citus.PgNodeTree.Node;
import dev.exactly.citus.WriteStatements.Prepared;
import dev.exactly.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLWarning;

/**
 * CI's stand-in for a Citus cluster (which CI does not have): every write statement the
 * application can send to a distributed or reference table passes the checks Citus makes before
 * it plans a write ({@link DistributedWriteRules}). The statements are the SQL of every route:
 * each SQL constant of the application's classes (the repositories' client statements) and the
 * write statements of every function of the {@code exactly} schema (sql/*.sql, as migrated), with
 * the functions each class calls listed, directly and through other functions. PostgreSQL's own
 * parser analyses each one (PREPARE with {@code debug_print_parse}); the checks read its query
 * tree. The Citus tables are those sql/citus/distribute.sql distributes.
 *
 * <p>What this does not catch, the Citus suite does (tests named *CitusTest, run by hand on a
 * cluster): plans Citus cannot make for other reasons (joins it cannot push down, multi-shard
 * statements in a transaction, ...).
 */
class DistributedWriteRulesTest {


    private static Connection db;
    private static DistributedWriteRules rules;
    /** Tables and views of the schema: {@code exactly.name (} is a column list there, not a call. */
    private static Set<String> relations = new HashSet<>();
    private static int prepared;

    @BeforeAll
    static void schema() throws Exception {
        db = DriverManager.getConnection(TestDatabase.jdbcUrl(TestDatabase.createMigratedDatabase()), "postgres", "");
        rules = new DistributedWriteRules(catalog(db));
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(
                "SELECT relname FROM pg_class WHERE relnamespace = 'exactly'::regnamespace")) {
            while (r.next()) {
                relations.add(r.getString(1));
            }
        }
    }

    @AfterAll
    static void close() throws SQLException {
        db.close();
    }

    @Test
    void everyWriteOfEveryRoutePassesCitusChecks() throws Exception {
        Map<String, Function> functions = functions();
        List<Prepared> statements = new ArrayList<>();
        for (Function f : functions.values()) {
            statements.addAll(WriteStatements.ofFunction("exactly." + f.name, f.language, f.body, f.arguments,
                    DistributedWriteRulesTest::columnType));
        }
        Map<String, List<String>> client = RouteSql.clientStatements();
        client.forEach((origin, sqls) -> sqls.forEach(sql -> statements.add(WriteStatements.ofClient(origin, sql))));

        // the listing: each class's statements, and the functions they reach
        Map<String, Set<String>> reach = new TreeMap<>();
        Set<String> missing = new TreeSet<>();
        client.forEach((origin, sqls) -> {
            String owner = origin.substring(0, origin.lastIndexOf('.'));
            Set<String> reached = reach.computeIfAbsent(owner, k -> new TreeSet<>());
            for (String sql : sqls) {
                for (String fn : RouteSql.calls(sql)) {
                    reachAll(fn, functions, reached, missing);
                }
            }
        });
        reach.forEach((owner, fns) -> System.out.println("[citus-rules] " + owner + " -> " + String.join(", ", fns)));
        assertEquals(Set.of(), missing, "functions the application calls that sql/ does not define");
        assertTrue(reach.values().stream().mapToInt(Set::size).sum() > 20, "the listing found the routes' functions");

        List<String> problems = new ArrayList<>();
        int writes = 0;
        for (Prepared p : statements) {
            Node tree;
            try {
                tree = parseTree(p);
            } catch (SQLException e) {
                problems.add(p.origin() + ": cannot be checked, PostgreSQL does not take it: " + e.getMessage()
                        + "\n    " + p.sql());
                continue;
            }
            if (isWrite(tree)) {
                writes++;
            }
            for (String v : rules.violations(tree)) {
                problems.add(p.origin() + ": " + v + "\n    " + p.sql());
            }
        }
        System.out.println("[citus-rules] " + statements.size() + " statements checked (" + writes + " writes), from "
                + functions.size() + " functions and " + client.size() + " client constants");
        assertTrue(writes > 30, "the write statements were found: " + writes);
        assertEquals("", String.join("\n", problems));
    }

    /**
     * The checks refuse what Citus refuses: the statements of Citus' own regression test
     * (multi_function_evaluation) made on exactly.tasks, and fail_task's UPDATE as it was when it
     * answered 500 on Citus (timestamptz + make_interval(...) of a column inside a CASE); and
     * they let through what Citus takes.
     */
    @Test
    void theChecksRefuseWhatCitusRefuses() throws Exception {
        String failTaskBefore = "UPDATE exactly.tasks t SET "
                + "state = CASE WHEN t.attempts > t.max_retries THEN 'dead' ELSE 'retrying' END, "
                + "run_at = CASE WHEN t.attempts > t.max_retries THEN t.run_at "
                + "ELSE $1 + make_interval(secs => t.retry_delay_seconds) END, "
                + "finished_at = CASE WHEN t.attempts > t.max_retries THEN $1 END, "
                + "last_error = $2, lease_id = NULL, lease_expires_at = NULL, updated_at = $1 "
                + "WHERE t.queue = $3 AND t.task_id = $4 AND t.state = 'running' AND t.lease_id = $5 "
                + "AND t.lease_expires_at > $1 RETURNING t.*";
        assertRefused(failTaskBefore, "non-IMMUTABLE function in a CASE");
        assertRefused("UPDATE exactly.tasks t SET run_at = CASE WHEN now() > t.run_at THEN now() ELSE t.run_at END "
                + "WHERE t.queue = 'q'", "non-IMMUTABLE function in a CASE");
        assertRefused("UPDATE exactly.tasks t SET run_at = COALESCE(now(), t.run_at) WHERE t.queue = 'q'",
                "non-IMMUTABLE function in a CASE or COALESCE");
        assertRefused("UPDATE exactly.tasks t SET last_error = exactly.task_state_label(t.state, t.run_at) "
                + "WHERE t.queue = 'q'", "STABLE function called with a column reference");
        assertRefused("UPDATE exactly.tasks t SET last_error = t.run_at::text WHERE t.queue = 'q'",
                "STABLE function called with a column reference");
        assertRefused("UPDATE exactly.tasks t SET priority = (random() * 10)::int WHERE t.queue = 'q'", "VOLATILE");
        assertRefused("DELETE FROM exactly.tasks t WHERE t.queue = 'q' AND random() < 0.5", "VOLATILE");
        assertRefused("UPDATE exactly.tasks t SET priority = 1 WHERE t.queue = 'q' RETURNING now()", "RETURNING");
        assertRefused("INSERT INTO exactly.tasks (queue, task_id, type, data, run_at) "
                + "VALUES ('q', 'x', 't', '', COALESCE($1, now()))", "non-IMMUTABLE function in a CASE or COALESCE");

        assertTaken("UPDATE exactly.tasks t SET run_at = CASE WHEN t.attempts > 1 THEN t.run_at ELSE $1 END, "
                + "updated_at = now(), lease_expires_at = now() + make_interval(secs => $2) "
                + "WHERE t.queue = 'q' AND t.lease_expires_at > now() RETURNING t.*");
        assertTaken("UPDATE exactly.tasks t SET run_at = COALESCE($1, t.run_at) WHERE t.queue = 'q'");
        assertTaken("DELETE FROM exactly.tasks t WHERE t.queue = 'q' AND t.finished_at < now() - interval '1 day'");
        // a table Citus does not have is none of its business
        assertTaken("UPDATE exactly.flyway_schema_history h SET installed_on = CASE WHEN h.success THEN now() END");
    }

    private static void assertRefused(String sql, String why) throws SQLException {
        List<String> v = rules.violations(parseTree(WriteStatements.ofClient("fixture", sql)));
        assertTrue(v.stream().anyMatch(s -> s.contains(why)), "not refused for " + why + ": " + sql + " -> " + v);
    }

    private static void assertTaken(String sql) throws SQLException {
        List<String> v = rules.violations(parseTree(WriteStatements.ofClient("fixture", sql)));
        assertEquals(List.of(), v, sql);
    }

    private static boolean isWrite(Node tree) {
        long command = tree.number("commandType");
        if (command >= 2 && command <= 4) {
            return true;
        }
        return tree.list("cteList").stream().anyMatch(c -> c instanceof Node n && n.node("ctequery") != null
                && isWrite(n.node("ctequery")));
    }

    // ------------------------------------------------------------------------------ PostgreSQL

    /** The query tree PostgreSQL's parser makes of the statement (PREPARE, its parse tree logged to this client). */
    static synchronized Node parseTree(Prepared p) throws SQLException {
        List<String> types = new ArrayList<>(p.paramTypes());
        for (int attempt = 0; ; attempt++) {
            String name = "citus_rules_" + (++prepared);
            String params = types.isEmpty() ? "" : "(" + String.join(", ", types) + ")";
            try (Statement settings = db.createStatement(); Statement s = db.createStatement()) {
                settings.execute("SET client_min_messages = log");
                settings.execute("SET debug_print_parse = on");
                settings.execute("SET debug_pretty_print = off");
                try {
                    s.execute("PREPARE " + name + params + " AS " + p.sql());
                } catch (SQLException e) {
                    // a parameter whose type its place does not tell (a record field in a select
                    // list): any type will do for these checks
                    Matcher m = Pattern.compile("could not determine data type of parameter \\$(\\d+)").matcher(
                            String.valueOf(e.getMessage()));
                    if (m.find() && attempt < 20) {
                        types.set(Integer.parseInt(m.group(1)) - 1, "text");
                        continue;
                    }
                    throw e;
                } finally {
                    settings.execute("SET debug_print_parse = off");
                    settings.execute("SET client_min_messages = notice");
                }
                // the last tree printed that is not the PREPARE itself (a utility statement)
                String tree = null;
                for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                    if (w instanceof PSQLWarning pw && pw.getServerErrorMessage() != null
                            && "parse tree:".equals(pw.getServerErrorMessage().getMessage())) {
                        String d = pw.getServerErrorMessage().getDetail();
                        if (d != null && !d.contains(":commandType 6 ")) {
                            tree = d;
                        }
                    }
                }
                settings.execute("DEALLOCATE " + name);
                if (tree == null) {
                    throw new IllegalStateException("PostgreSQL printed no parse tree for " + p.sql());
                }
                return PgNodeTree.parse(tree);
            }
        }
    }

    private static DistributedWriteRules.Catalog catalog(Connection c) throws Exception {
        Map<Long, Character> volatility = new HashMap<>();
        Map<Long, Long> operators = new HashMap<>();
        Map<Long, Long> input = new HashMap<>();
        Map<Long, Long> output = new HashMap<>();
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT oid, provolatile FROM pg_proc")) {
                while (r.next()) {
                    volatility.put(r.getLong(1), r.getString(2).charAt(0));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT oid, oprcode::oid FROM pg_operator")) {
                while (r.next()) {
                    operators.put(r.getLong(1), r.getLong(2));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT oid, typinput::oid, typoutput::oid FROM pg_type")) {
                while (r.next()) {
                    input.put(r.getLong(1), r.getLong(2));
                    output.put(r.getLong(1), r.getLong(3));
                }
            }
        }
        Set<Long> tables = new HashSet<>();
        Matcher m = Pattern.compile("create_(?:distributed|reference)_table\\('(exactly\\.[a-z_]+)'")
                .matcher(Files.readString(Path.of("sql", "citus", "distribute.sql")));
        try (Statement s = c.createStatement()) {
            while (m.find()) {
                try (ResultSet r = s.executeQuery("SELECT '" + m.group(1) + "'::regclass::oid")) {
                    r.next();
                    tables.add(r.getLong(1));
                }
            }
        }
        assertTrue(tables.size() >= 10, "distribute.sql's tables: " + tables);
        return new DistributedWriteRules.Catalog(volatility, operators, input, output, tables);
    }

    /** A function of the schema. */
    private record Function(String name, String language, String body, LinkedHashMap<String, String> arguments) {
    }

    private static Map<String, Function> functions() throws SQLException {
        Map<String, Function> out = new TreeMap<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(
                "SELECT p.proname, l.lanname, p.prosrc, p.proargnames, p.proargmodes, "
                        + "ARRAY(SELECT format_type(a.t, NULL) FROM unnest(COALESCE(p.proallargtypes, p.proargtypes::oid[])) "
                        + "WITH ORDINALITY AS a(t, o) ORDER BY a.o) "
                        + "FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
                        + "WHERE p.pronamespace = 'exactly'::regnamespace AND p.prokind = 'f' ORDER BY 1")) {
            while (r.next()) {
                String language = r.getString(2);
                String[] names = strings(r.getArray(4));
                String[] modes = strings(r.getArray(5));
                String[] types = strings(r.getArray(6));
                LinkedHashMap<String, String> args = new LinkedHashMap<>();
                for (int i = 0; i < types.length; i++) {
                    String mode = modes == null ? "i" : modes[i];
                    boolean in = mode.equals("i") || mode.equals("b") || mode.equals("v");
                    if (language.equals("sql") && !in) {
                        continue; // a SQL function's $n are its input arguments
                    }
                    String name = names == null || names[i].isEmpty() ? "$" + (i + 1) : names[i];
                    args.put(name, types[i]);
                }
                if (!language.equals("plpgsql") && !language.equals("sql")) {
                    continue;
                }
                String name = r.getString(1);
                if (out.containsKey(name)) {
                    name = name + "#" + out.size(); // an overload
                }
                out.put(name, new Function(r.getString(1), language, r.getString(3), args));
            }
        }
        return out;
    }

    private static String[] strings(Array a) throws SQLException {
        if (a == null) {
            return null;
        }
        Object o = a.getArray();
        if (o instanceof String[] s) {
            return s;
        }
        Object[] objects = (Object[]) o;
        String[] out = new String[objects.length];
        for (int i = 0; i < objects.length; i++) {
            out[i] = String.valueOf(objects[i]);
        }
        return out;
    }

    /** A column's type ("exactly.tasks", "queue"), or null. */
    private static String columnType(String table, String column) {
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(
                "SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = '" + table
                        + "'::regclass AND a.attname = '" + column + "' AND NOT a.attisdropped")) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            return null;
        }
    }

    private static void reachAll(String fn, Map<String, Function> functions, Set<String> reached, Set<String> missing) {
        if (!reached.add(fn)) {
            return;
        }
        Function f = functions.get(fn);
        if (f == null) {
            if (!relations.contains(fn)) {
                missing.add(fn);
            }
            reached.remove(fn);
            return;
        }
        for (String callee : RouteSql.calls(f.body())) {
            if (!callee.equals(fn)) {
                reachAll(callee, functions, reached, missing);
            }
        }
    }

}
