package dev.exactly.citus;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small lexer for PostgreSQL SQL and PL/pgSQL text (PostgreSQL manual, "Lexical Structure"):
 * words (identifiers and key words), quoted identifiers, string constants (standard, E'' and
 * dollar-quoted), numbers, positional parameters ($1), operators and punctuation. Comments are
 * dropped. Enough to find the statements of a function body and the variables in them; not a parser.
 */
final class SqlTokens {

    /** Token kinds. */
    enum Kind { WORD, QUOTED_IDENT, STRING, NUMBER, PARAM, OP, PUNCT }

    /**
     * One token.
     *
     * @param kind what it is
     * @param text its text as written (a word as written too; compare with {@link #is})
     */
    record Token(Kind kind, String text) {

        /** Whether this is the word {@code word} (key words and unquoted identifiers compare case-insensitively). */
        boolean is(String word) {
            return kind == Kind.WORD && text.equalsIgnoreCase(word);
        }

        /** Whether this is the punctuation or operator {@code p}. */
        boolean isSymbol(String p) {
            return (kind == Kind.PUNCT || kind == Kind.OP) && text.equals(p);
        }

        /** An identifier's name as PostgreSQL folds it: lower case unless quoted. */
        String name() {
            return kind == Kind.QUOTED_IDENT ? text.substring(1, text.length() - 1).replace("\"\"", "\"")
                    : text.toLowerCase(Locale.ROOT);
        }

        boolean isIdentifier() {
            return kind == Kind.WORD || kind == Kind.QUOTED_IDENT;
        }
    }

    private static final String OP_CHARS = "+-*/<>=~!@#%^&|`?";

    private SqlTokens() {
    }

    /**
     * @param sql SQL or PL/pgSQL text
     * @return its tokens, comments left out
     * @throws IllegalArgumentException on an unterminated string, identifier or comment
     */
    static List<Token> lex(String sql) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated comment");
                }
                i = end + 2;
            } else if (c == '\'' || ((c == 'E' || c == 'e') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                boolean escapes = c != '\'';
                int j = escapes ? i + 2 : i + 1;
                while (true) {
                    if (j >= n) {
                        throw new IllegalArgumentException("unterminated string");
                    }
                    char d = sql.charAt(j);
                    if (escapes && d == '\\') {
                        j += 2;
                    } else if (d == '\'') {
                        if (j + 1 < n && sql.charAt(j + 1) == '\'') {
                            j += 2;
                        } else {
                            break;
                        }
                    } else {
                        j++;
                    }
                }
                out.add(new Token(Kind.STRING, sql.substring(i, j + 1)));
                i = j + 1;
            } else if (c == '"') {
                int j = i + 1;
                while (true) {
                    int q = sql.indexOf('"', j);
                    if (q < 0) {
                        throw new IllegalArgumentException("unterminated quoted identifier");
                    }
                    if (q + 1 < n && sql.charAt(q + 1) == '"') {
                        j = q + 2;
                    } else {
                        j = q;
                        break;
                    }
                }
                out.add(new Token(Kind.QUOTED_IDENT, sql.substring(i, j + 1)));
                i = j + 1;
            } else if (c == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && Character.isDigit(sql.charAt(j))) {
                    j++;
                }
                out.add(new Token(Kind.PARAM, sql.substring(i, j)));
                i = j;
            } else if (c == '$') {
                int close = sql.indexOf('$', i + 1);
                String tag = close < 0 ? null : sql.substring(i, close + 1);
                if (tag == null || !tag.substring(1, tag.length() - 1).chars().allMatch(ch -> Character.isLetterOrDigit(ch) || ch == '_')) {
                    throw new IllegalArgumentException("unexpected $ at " + i);
                }
                int end = sql.indexOf(tag, close + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated dollar quote " + tag);
                }
                out.add(new Token(Kind.STRING, sql.substring(i, end + tag.length())));
                i = end + tag.length();
            } else if (Character.isLetter(c) || c == '_') {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_' || sql.charAt(j) == '$')) {
                    j++;
                }
                out.add(new Token(Kind.WORD, sql.substring(i, j)));
                i = j;
            } else if (Character.isDigit(c)) {
                int j = i + 1;
                while (j < n && Character.isDigit(sql.charAt(j))) {
                    j++;
                }
                if (j + 1 < n && sql.charAt(j) == '.' && Character.isDigit(sql.charAt(j + 1))) {
                    j++;
                    while (j < n && Character.isDigit(sql.charAt(j))) {
                        j++;
                    }
                }
                out.add(new Token(Kind.NUMBER, sql.substring(i, j)));
                i = j;
            } else if (c == ':' && i + 1 < n && (sql.charAt(i + 1) == ':' || sql.charAt(i + 1) == '=')) {
                out.add(new Token(Kind.OP, sql.substring(i, i + 2)));
                i += 2;
            } else if (OP_CHARS.indexOf(c) >= 0) {
                int j = i + 1;
                while (j < n && OP_CHARS.indexOf(sql.charAt(j)) >= 0
                        && !(sql.charAt(j) == '-' && j + 1 < n && sql.charAt(j + 1) == '-')) {
                    j++;
                }
                out.add(new Token(Kind.OP, sql.substring(i, j)));
                i = j;
            } else {
                out.add(new Token(Kind.PUNCT, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    /** The tokens joined by single spaces: the same statement to PostgreSQL. */
    static String text(List<Token> tokens) {
        StringBuilder b = new StringBuilder();
        for (Token t : tokens) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(t.text());
        }
        return b.toString();
    }
}
