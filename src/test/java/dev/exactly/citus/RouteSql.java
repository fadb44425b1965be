package dev.exactly.citus;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The SQL of the application's routes: the statements its classes send (their SQL constants) and
 * the functions of the {@code exactly} schema those reach, directly or through other functions.
 * Read from the build (target/classes) and from a migrated database, so that nothing is listed by
 * hand and a new statement or function is covered the day it is written.
 */
final class RouteSql {

    private static final Pattern CALL = Pattern.compile("exactly\\.([a-z_][a-z0-9_]*)\\s*\\(");
    private static final Pattern CLIENT_SQL = Pattern.compile("(?is)^\\s*(select|with|update|insert|delete)\\b.*\\bexactly\\.");

    private RouteSql() {
    }

    /** The names a statement or function body calls as {@code exactly.name(} (tables with a column list too). */
    static Set<String> calls(String sql) {
        Set<String> out = new TreeSet<>();
        Matcher m = CALL.matcher(sql);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /**
     * Every String constant of the application's classes (target/classes) that is a statement on
     * the exactly schema, by "Class.FIELD".
     */
    static Map<String, List<String>> clientStatements() throws IOException, ReflectiveOperationException {
        Path classes = Path.of("target", "classes");
        Map<String, List<String>> out = new TreeMap<>();
        List<String> names;
        try (Stream<Path> all = Files.walk(classes.resolve("dev"))) {
            names = all.map(p -> classes.relativize(p).toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.')).sorted().toList();
        }
        for (String name : names) {
            Class<?> type;
            try {
                type = Class.forName(name, false, RouteSql.class.getClassLoader());
            } catch (LinkageError | ClassNotFoundException e) {
                continue; // a class of the other shape's build
            }
            for (Field f : type.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (f.getType() != String.class || !Modifier.isStatic(mod) || !Modifier.isFinal(mod)) {
                    continue;
                }
                f.setAccessible(true);
                String value;
                try {
                    value = (String) f.get(null);
                } catch (LinkageError e) {
                    continue; // a class that cannot be initialised outside the application
                }
                if (value != null && CLIENT_SQL.matcher(value).find()) {
                    out.computeIfAbsent(type.getSimpleName() + "." + f.getName(), k -> new ArrayList<>()).add(value);
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no SQL constants found under " + classes);
        }
        return out;
    }

    /**
     * The functions of the schema the application's statements reach, directly or through other
     * functions, with their language.
     *
     * @param db a connection to a migrated database
     * @return function name to language (plpgsql, sql)
     * @throws IllegalStateException when a statement calls a function the schema does not have
     */
    static Map<String, String> routeFunctions(Connection db) throws Exception {
        Map<String, String> language = new HashMap<>();
        Map<String, String> body = new HashMap<>();
        Set<String> relations = new TreeSet<>();
        try (Statement s = db.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT p.proname, l.lanname, p.prosrc FROM pg_proc p "
                    + "JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = 'exactly'::regnamespace")) {
                while (r.next()) {
                    language.put(r.getString(1), r.getString(2));
                    body.merge(r.getString(1), r.getString(3), (a, b) -> a + "\n" + b);
                }
            }
            try (ResultSet r = s.executeQuery("SELECT relname FROM pg_class WHERE relnamespace = 'exactly'::regnamespace")) {
                while (r.next()) {
                    relations.add(r.getString(1));
                }
            }
        }
        Map<String, String> out = new TreeMap<>();
        List<String> todo = new ArrayList<>();
        for (List<String> sqls : clientStatements().values()) {
            for (String sql : sqls) {
                todo.addAll(calls(sql));
            }
        }
        while (!todo.isEmpty()) {
            String fn = todo.remove(todo.size() - 1);
            if (out.containsKey(fn) || relations.contains(fn)) {
                continue;
            }
            if (!language.containsKey(fn)) {
                throw new IllegalStateException("the application calls exactly." + fn + ", which sql/ does not define");
            }
            out.put(fn, language.get(fn));
            todo.addAll(calls(body.get(fn)));
        }
        return out;
    }

    /** The PL/pgSQL functions of the schema whose body only raises an error (BEGIN RAISE ...; END). */
    static Set<String> raiseOnly(Connection db) throws SQLException {
        Set<String> out = new TreeSet<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT p.proname, p.prosrc FROM pg_proc p "
                + "JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = 'exactly'::regnamespace "
                + "AND l.lanname = 'plpgsql'")) {
            while (r.next()) {
                if (r.getString(2).strip().matches("(?is)BEGIN\\s+RAISE\\s+EXCEPTION\\b[^;]*;\\s*END;?")) {
                    out.add(r.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * Calls so far of each PL/pgSQL function of the schema on this node (pg_stat_user_functions;
     * counted while track_functions is pl or all).
     */
    static Map<String, Long> calls(Connection db) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(
                "SELECT funcname, sum(calls) FROM pg_stat_user_functions WHERE schemaname = 'exactly' GROUP BY 1")) {
            while (r.next()) {
                out.put(r.getString(1), r.getLong(2));
            }
        }
        return out;
    }
}
