package dev.exactly.citus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads PostgreSQL's text form of a node tree: what {@code debug_print_parse} shows of an
 * analysed query ({@code nodeToString}, src/backend/nodes/outfuncs.c, read back by read.c's
 * {@code pg_strtok}): a node is {@code {NAME :field value ...}}, a list is {@code ( ... )}
 * (possibly typed: {@code (i 1 2)}, {@code (o ...)}, {@code (b ...)}), {@code <>} is null and
 * anything else is an atom. Tokens are separated by white space; {@code ( ) { }} are tokens of
 * their own unless escaped with a backslash.
 */
final class PgNodeTree {

    /**
     * One node.
     *
     * @param name   its type as printed, e.g. QUERY, FUNCEXPR, CASEEXPR
     * @param fields its fields in order: a {@link Node}, a {@link List} of values, a String
     *               (atoms joined by a space), or null for {@code <>}
     */
    record Node(String name, Map<String, Object> fields) {

        Object get(String field) {
            return fields.get(field);
        }

        Node node(String field) {
            return fields.get(field) instanceof Node n ? n : null;
        }

        List<?> list(String field) {
            return fields.get(field) instanceof List<?> l ? l : List.of();
        }

        long number(String field) {
            Object v = fields.get(field);
            if (!(v instanceof String s)) {
                throw new IllegalStateException(name + " has no number in :" + field + ": " + v);
            }
            return Long.parseLong(s.split(" ")[0]);
        }

        boolean flag(String field) {
            return "true".equals(fields.get(field));
        }

        /** Every node directly below this one: in its fields and in their lists, at any depth of list nesting. */
        List<Node> children() {
            List<Node> out = new ArrayList<>();
            for (Object v : fields.values()) {
                collect(v, out);
            }
            return out;
        }

        private static void collect(Object v, List<Node> out) {
            if (v instanceof Node n) {
                out.add(n);
            } else if (v instanceof List<?> l) {
                for (Object e : l) {
                    collect(e, out);
                }
            }
        }
    }

    private final List<String> tokens;
    private int at;

    private PgNodeTree(List<String> tokens) {
        this.tokens = tokens;
    }

    /**
     * @param dump a node tree as PostgreSQL prints it
     * @return its root node
     * @throws IllegalArgumentException when the text is not a node tree
     */
    static Node parse(String dump) {
        PgNodeTree p = new PgNodeTree(tokenize(dump));
        Object v = p.value();
        if (!(v instanceof Node n)) {
            throw new IllegalArgumentException("not a node tree: " + dump.substring(0, Math.min(80, dump.length())));
        }
        return n;
    }

    private static List<String> tokenize(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                cur.append(s.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                flush(cur, out);
            } else if (c == '(' || c == ')' || c == '{' || c == '}') {
                flush(cur, out);
                out.add(String.valueOf(c));
            } else {
                cur.append(c);
            }
        }
        flush(cur, out);
        return out;
    }

    private static void flush(StringBuilder cur, List<String> out) {
        if (cur.length() > 0) {
            out.add(cur.toString());
            cur.setLength(0);
        }
    }

    private Object value() {
        String t = tokens.get(at);
        if (t.equals("{")) {
            return node();
        }
        if (t.equals("(")) {
            return list();
        }
        if (t.equals("<>")) {
            at++;
            return null;
        }
        StringBuilder atom = new StringBuilder();
        while (at < tokens.size()) {
            String a = tokens.get(at);
            if (a.startsWith(":") || a.equals("}") || a.equals(")") || a.equals("{") || a.equals("(")) {
                break;
            }
            atom.append(atom.length() == 0 ? "" : " ").append(a);
            at++;
        }
        return atom.toString();
    }

    private Node node() {
        at++; // {
        String name = tokens.get(at++);
        Map<String, Object> fields = new LinkedHashMap<>();
        while (!tokens.get(at).equals("}")) {
            String field = tokens.get(at++);
            if (!field.startsWith(":")) {
                throw new IllegalArgumentException("expected a field of " + name + ", got " + field);
            }
            String next = tokens.get(at);
            fields.put(field.substring(1), next.startsWith(":") || next.equals("}") ? "" : value());
        }
        at++; // }
        return new Node(name, fields);
    }

    private List<Object> list() {
        at++; // (
        List<Object> out = new ArrayList<>();
        while (!tokens.get(at).equals(")")) {
            String t = tokens.get(at);
            if (t.equals("{")) {
                out.add(node());
            } else if (t.equals("(")) {
                out.add(list());
            } else {
                out.add(t);
                at++;
            }
        }
        at++; // )
        return out;
    }
}
