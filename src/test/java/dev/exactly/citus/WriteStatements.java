package dev.exactly.citus;

import dev.exactly.citus.SqlTokens.Kind;
import dev.exactly.citus.SqlTokens.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Finds the write statements (INSERT, UPDATE, DELETE, and WITH queries with one inside) in a
 * PL/pgSQL or SQL function body and makes each a statement PostgreSQL can PREPARE on its own:
 * every reference to a variable or parameter of the function becomes a positional parameter of
 * the variable's type ({@code $n}), a field of a record variable one of unknown type (PostgreSQL
 * infers it), and PL/pgSQL's {@code INTO} targets are left out. Variables are the function's
 * arguments, its DECLARE sections and the integer variables of {@code FOR i IN a..b} loops.
 * Like PL/pgSQL, it takes an unqualified name in an expression for the variable; a column of the
 * same name would have to be qualified there (PL/pgSQL refuses the ambiguity), and where a name
 * cannot be an expression (an INSERT's column list, a SET target, an alias, ON CONFLICT's columns)
 * it is left alone.
 */
final class WriteStatements {

    /**
     * One statement, ready to PREPARE.
     *
     * @param origin     where it comes from, for messages
     * @param sql        its text, variables as $1, $2, ...
     * @param paramTypes the type of each parameter, in order ("unknown": PostgreSQL infers it)
     */
    record Prepared(String origin, String sql, List<String> paramTypes) {
    }

    private static final Set<String> WRITES = Set.of("update", "insert", "delete", "with");
    private static final Set<String> BEFORE_STATEMENT = Set.of("then", "else", "loop", "begin", "query");

    /** Key words that stay key words unquoted, whatever variable shares their name (e.g. an OUT column "offset"). */
    private static final Set<String> RESERVED = Set.of("all", "and", "any", "array", "as", "asc", "both", "case", "cast",
            "check", "collate", "column", "constraint", "create", "current_date", "current_time", "current_timestamp",
            "current_user", "default", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for",
            "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into", "lateral", "leading",
            "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or", "order", "placing",
            "primary", "references", "returning", "select", "session_user", "some", "symmetric", "table", "then", "to",
            "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where", "window", "with",
            "partition", "over", "set", "values", "conflict", "nothing", "update", "delete", "insert");

    private WriteStatements() {
    }

    /**
     * @param origin    where the body comes from (e.g. "exactly.fail_task")
     * @param language  plpgsql or sql
     * @param body      the function body ({@code pg_proc.prosrc})
     * @param arguments the function's arguments and OUT columns, name to type, in order
     * @param columnType the type of a table's column ("exactly.tasks", "queue"), for fields of
     *                  %ROWTYPE variables; null if unknown
     * @return its write statements
     */
    static List<Prepared> ofFunction(String origin, String language, String body, LinkedHashMap<String, String> arguments,
                                     BiFunction<String, String, String> columnType) {
        List<Token> tokens = SqlTokens.lex(body);
        Map<String, String> vars = new LinkedHashMap<>();
        boolean sql = language.equals("sql");
        if (sql) {
            int k = 1;
            for (Map.Entry<String, String> a : arguments.entrySet()) {
                vars.put(a.getKey(), "$" + k++ + ":" + a.getValue());
            }
        } else {
            vars.putAll(arguments);
            declarations(tokens, vars);
        }
        List<Prepared> out = new ArrayList<>();
        for (List<Token> chunk : split(tokens)) {
            for (List<Token> stmt : writes(chunk)) {
                out.add(sql ? positional(origin, withoutInto(stmt), vars)
                        : substitute(origin, withoutInto(stmt), vars, columnType));
            }
        }
        return out;
    }

    /** A client statement ($1, $2, ... of unknown types) as it is. */
    static Prepared ofClient(String origin, String sql) {
        int max = 0;
        for (Token t : SqlTokens.lex(sql)) {
            if (t.kind() == Kind.PARAM) {
                max = Math.max(max, Integer.parseInt(t.text().substring(1)));
            }
        }
        List<String> types = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            types.add("unknown");
        }
        return new Prepared(origin, sql, types);
    }

    /** Variables of DECLARE sections (name type [...]) and FOR loops over integer ranges. */
    private static void declarations(List<Token> t, Map<String, String> vars) {
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).is("declare")) {
                int j = i + 1;
                while (j < t.size() && !t.get(j).is("begin")) {
                    int end = j;
                    while (end < t.size() && !t.get(end).isSymbol(";") && !t.get(end).is("begin")) {
                        end++;
                    }
                    declaration(t.subList(j, end), vars);
                    j = end + 1;
                }
                i = j;
            } else if (t.get(i).is("for") && i + 3 < t.size() && t.get(i + 1).isIdentifier() && t.get(i + 2).is("in")) {
                Token first = t.get(i + 3);
                boolean query = first.is("select") || first.is("with") || first.is("insert") || first.is("update")
                        || first.is("delete") || first.is("execute") || first.isSymbol("(");
                if (!query && !first.is("reverse")) {
                    vars.putIfAbsent(t.get(i + 1).name(), "integer");
                }
            }
        }
    }

    private static void declaration(List<Token> d, Map<String, String> vars) {
        if (d.isEmpty() || !d.get(0).isIdentifier()) {
            return;
        }
        String name = d.get(0).name();
        StringBuilder type = new StringBuilder();
        for (int k = 1; k < d.size(); k++) {
            Token x = d.get(k);
            if (x.is("constant")) {
                continue;
            }
            if (x.isSymbol(":=") || x.isSymbol("=") || x.is("default") || x.is("not") || x.is("collate")) {
                break;
            }
            type.append(x.text());
            if (x.isIdentifier() && k + 1 < d.size() && d.get(k + 1).isIdentifier()) {
                type.append(' '); // double precision, timestamp with time zone
            }
        }
        String ty = type.toString();
        if (ty.toUpperCase(Locale.ROOT).endsWith("%ROWTYPE")) {
            vars.put(name, "rowtype:" + ty.substring(0, ty.length() - "%ROWTYPE".length()).toLowerCase(Locale.ROOT));
        } else if (ty.toUpperCase(Locale.ROOT).endsWith("%TYPE")) {
            vars.put(name, "unknown");
        } else {
            vars.put(name, ty.equalsIgnoreCase("record") ? "record" : ty);
        }
    }

    /** Statements: the tokens between semicolons outside parentheses. */
    private static List<List<Token>> split(List<Token> t) {
        List<List<Token>> out = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            if (x.isSymbol("(")) {
                depth++;
            } else if (x.isSymbol(")")) {
                depth--;
            } else if (x.isSymbol(";") && depth == 0) {
                out.add(t.subList(from, i));
                from = i + 1;
            }
        }
        if (from < t.size()) {
            out.add(t.subList(from, t.size()));
        }
        return out;
    }

    /**
     * The write statements of one chunk: a statement starts where a chunk or a control
     * structure's body does (after THEN, ELSE, LOOP, BEGIN, RETURN QUERY) or after
     * {@code FOR x IN} (a loop over a write's RETURNING, ended by its LOOP).
     */
    private static List<List<Token>> writes(List<Token> c) {
        List<List<Token>> out = new ArrayList<>();
        int k = 0;
        while (k < c.size()) {
            Token t = c.get(k);
            boolean loopHeader = k >= 3 && c.get(k - 1).is("in") && c.get(k - 3).is("for");
            boolean start = k == 0 || loopHeader || (c.get(k - 1).kind() == Kind.WORD
                    && BEFORE_STATEMENT.contains(c.get(k - 1).name())) || c.get(k - 1).isSymbol(">>");
            if (t.kind() == Kind.WORD && WRITES.contains(t.name()) && start) {
                int end = c.size();
                if (loopHeader) {
                    int depth = 0;
                    for (int j = k; j < c.size(); j++) {
                        Token x = c.get(j);
                        depth += x.isSymbol("(") ? 1 : x.isSymbol(")") ? -1 : 0;
                        if (depth == 0 && x.is("loop")) {
                            end = j;
                            break;
                        }
                    }
                }
                List<Token> stmt = c.subList(k, end);
                if (!t.is("with") || hasWrite(stmt)) {
                    out.add(stmt);
                }
                k = end;
            } else {
                k++;
            }
        }
        return out;
    }

    /** Whether a WITH query holds a write: INSERT, UPDATE or DELETE right after a parenthesis. */
    private static boolean hasWrite(List<Token> s) {
        for (int i = 1; i < s.size(); i++) {
            Token t = s.get(i);
            if ((t.is("insert") || t.is("update") || t.is("delete"))
                    && (s.get(i - 1).isSymbol("(") || s.get(i - 1).isSymbol(")"))) {
                return true;
            }
        }
        return false;
    }

    /** The statement without PL/pgSQL's {@code INTO [STRICT] target, ...} (not INSERT's INTO). */
    private static List<Token> withoutInto(List<Token> s) {
        List<Token> out = new ArrayList<>();
        int depth = 0;
        for (int i = 0; i < s.size(); i++) {
            Token t = s.get(i);
            depth += t.isSymbol("(") ? 1 : t.isSymbol(")") ? -1 : 0;
            if (depth == 0 && t.is("into") && i > 0 && !s.get(i - 1).is("insert") && !s.get(i - 1).is("merge")) {
                int j = i + 1;
                if (j < s.size() && s.get(j).is("strict")) {
                    j++;
                }
                while (j < s.size() && s.get(j).isIdentifier()) {
                    j++;
                    while (j + 1 < s.size() && s.get(j).isSymbol(".") && s.get(j + 1).isIdentifier()) {
                        j += 2;
                    }
                    if (j < s.size() && s.get(j).isSymbol(",")) {
                        j++;
                    } else {
                        break;
                    }
                }
                i = j - 1;
                continue;
            }
            out.add(t);
        }
        return out;
    }

    /** A SQL function's statement: its arguments by name become their positional parameters. */
    private static Prepared positional(String origin, List<Token> s, Map<String, String> vars) {
        List<Token> out = new ArrayList<>();
        for (int i = 0; i < s.size(); i++) {
            Token t = s.get(i);
            String v = t.isIdentifier() && !keyword(t) ? vars.get(t.name()) : null;
            if (v != null && isValue(s, i)) {
                out.add(new Token(Kind.PARAM, v.substring(0, v.indexOf(':'))));
            } else {
                out.add(t);
            }
        }
        List<String> types = new ArrayList<>();
        for (String v : vars.values()) {
            types.add(v.substring(v.indexOf(':') + 1));
        }
        return new Prepared(origin, SqlTokens.text(out), types);
    }

    private static Prepared substitute(String origin, List<Token> s, Map<String, String> vars,
                                       BiFunction<String, String, String> columnType) {
        List<Token> out = new ArrayList<>();
        Map<String, Integer> numbers = new HashMap<>();
        List<String> types = new ArrayList<>();
        int depth = 0;
        int skipUntil = -1;
        for (int i = 0; i < s.size(); i++) {
            Token t = s.get(i);
            if (t.isSymbol("(")) {
                depth++;
                if (skipUntil < 0 && namesFollow(s, i)) {
                    skipUntil = depth;
                }
                out.add(t);
                continue;
            }
            if (t.isSymbol(")")) {
                if (skipUntil == depth) {
                    skipUntil = -1;
                }
                depth--;
                out.add(t);
                continue;
            }
            String type = t.isIdentifier() && skipUntil < 0 && !keyword(t) ? vars.get(t.name()) : null;
            if (type == null || !isValue(s, i)) {
                out.add(t);
                continue;
            }
            boolean field = i + 2 < s.size() && s.get(i + 1).isSymbol(".") && s.get(i + 2).isIdentifier();
            String key = t.name();
            if (field) {
                if (!type.equals("record") && !type.startsWith("rowtype:")) {
                    out.add(t); // a table alias with a variable's name: a column reference
                    continue;
                }
                String column = s.get(i + 2).name();
                key = key + "." + column;
                type = type.startsWith("rowtype:") ? columnType.apply(type.substring("rowtype:".length()), column) : null;
                type = type == null ? "unknown" : type;
                i += 2;
            }
            Integer n = numbers.get(key);
            if (n == null) {
                types.add(type);
                n = types.size();
                numbers.put(key, n);
            }
            out.add(new Token(Kind.PARAM, "$" + n));
        }
        return new Prepared(origin, SqlTokens.text(out), types);
    }

    private static boolean keyword(Token t) {
        return t.kind() == Kind.WORD && RESERVED.contains(t.name());
    }

    /**
     * Whether the parenthesis at i opens a list of names rather than expressions: an INSERT's
     * column list ({@code INSERT INTO t [AS a] (}), ON CONFLICT's columns, a table alias's
     * column names ({@code AS a (}).
     */
    private static boolean namesFollow(List<Token> s, int i) {
        if (i >= 1 && s.get(i - 1).is("conflict")) {
            return true;
        }
        // "AS MATERIALIZED (" opens a CTE's query, not an alias's column names
        if (i >= 2 && s.get(i - 2).is("as") && s.get(i - 1).isIdentifier() && !s.get(i - 1).is("materialized")) {
            return true;
        }
        int j = i - 1;
        if (j >= 1 && s.get(j).isIdentifier() && s.get(j - 1).is("as")) {
            j -= 2;
        }
        while (j >= 2 && s.get(j).isIdentifier() && s.get(j - 1).isSymbol(".")) {
            j -= 2;
        }
        return j >= 1 && s.get(j).isIdentifier() && s.get(j - 1).is("into");
    }

    /**
     * Whether the name at i stands where an expression does: not qualified (x.name), not an
     * alias (AS name), not a type (::name), not a function or a named argument (name( and
     * name =>), not a SET target (SET name = / , name =) and not a constraint's name.
     */
    private static boolean isValue(List<Token> s, int i) {
        Token prev = i > 0 ? s.get(i - 1) : null;
        Token next = i + 1 < s.size() ? s.get(i + 1) : null;
        if (prev != null && (prev.isSymbol(".") || prev.is("as") || prev.isSymbol("::") || prev.is("constraint"))) {
            return false;
        }
        if (next != null && (next.isSymbol("(") || next.isSymbol("=>"))) {
            return false;
        }
        return !(next != null && next.isSymbol("=") && prev != null && (prev.is("set") || prev.isSymbol(",")));
    }
}
