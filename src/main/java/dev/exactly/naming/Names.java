package dev.exactly.naming;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Rules for the names and keys a producer sends, shared by every adapter that takes them. */
public final class Names {

    /**
     * The characters and length of {@link #NAME} alone, for regular-expression engines without
     * lookahead (Terraform's RE2: infra/terraform/variables.tf states the dot rule beside it).
     */
    public static final String NAME_CHARACTERS = "[A-Za-z0-9._:-]{1,255}";

    /**
     * Queue and partition names: 1 to 255 characters of [A-Za-z0-9._:-], but not "." or "..": a
     * URL path cannot carry those as a segment (RFC 3986, section 5.2.4, removes dot segments), so
     * the queue API's /queues/{queue} routes could never reach such a queue.
     */
    public static final Pattern NAME = Pattern.compile("(?!\\.{1,2}$)" + NAME_CHARACTERS);

    /** Longest transactionId, in UTF-8 bytes. */
    public static final int MAX_TRANSACTION_ID_BYTES = 256;

    /** Longest traceId, in UTF-8 bytes. */
    public static final int MAX_TRACE_ID_BYTES = 256;

    /** The partition an item goes to when it names none. */
    public static final String DEFAULT_PARTITION = "Default";

    private Names() {
    }

    /** @return null when {@code name} is a valid queue or partition name, else the reason */
    public static String checkName(String name) {
        if (name.isEmpty()) {
            return "must not be empty";
        }
        if (name.length() > 255) {
            return "must be at most 255 characters";
        }
        if (name.equals(".") || name.equals("..")) {
            return "must not be '.' or '..' (a URL path cannot name them)";
        }
        // the rule of NAME, checked per character: this runs for every pushed item
        for (int i = 0; i < name.length(); i++) {
            if (!isNameChar(name.charAt(i))) {
                return "may contain only A-Z, a-z, 0-9, '.', '_', ':' and '-'";
            }
        }
        return null;
    }

    private static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == ':' || c == '-';
    }

    /**
     * Checks an opaque key (transactionId, traceId): non-empty, well-formed Unicode (no lone
     * surrogate, which UTF-8 cannot carry), no NUL (PostgreSQL text cannot hold it), and at most
     * {@code maxBytes} UTF-8 bytes. Keys compare byte for byte; nothing is normalised.
     *
     * @return null when valid, else the reason
     */
    public static String checkKey(String key, int maxBytes) {
        if (key.isEmpty()) {
            return "must not be empty";
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == 0) {
                return "must not contain NUL (U+0000)";
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return "must be well-formed Unicode (lone surrogate at character " + i + ")";
            }
            if (Character.isLowSurrogate(c)) {
                return "must be well-formed Unicode (lone surrogate at character " + i + ")";
            }
        }
        if (key.length() * 3 > maxBytes && key.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            return "must be at most " + maxBytes + " UTF-8 bytes";
        }
        return null;
    }
}
