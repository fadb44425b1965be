package dev.exactly.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The little of Markdown the documentation tests read: fenced code blocks, headings and the anchors
 * GitHub gives them, links, and pipe tables. Text inside fences and inline code is never taken for
 * a heading or a link.
 */
final class Markdown {

    /** The repository root: Maven runs the tests from it. */
    static final Path ROOT = Path.of("").toAbsolutePath();

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    private final Path file;
    private final List<String> lines;

    private Markdown(Path file, List<String> lines) {
        this.file = file;
        this.lines = lines;
    }

    /** @param relative a path from the repository root, e.g. docs/queues.md */
    static Markdown read(String relative) {
        return read(ROOT.resolve(relative));
    }

    static Markdown read(Path file) {
        try {
            return new Markdown(file, Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** README.md, BENCHMARKS.md and every page of docs/: the user-facing documentation. */
    static List<Path> userDocs() {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    Path file() {
        return file;
    }

    /** The lines outside fenced code blocks, with their 1-based numbers; fence lines excluded. */
    Map<Integer, String> prose() {
        Map<Integer, String> out = new java.util.LinkedHashMap<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (FENCE.matcher(l).find()) {
                fenced = !fenced;
                continue;
            }
            if (!fenced) {
                out.put(i + 1, l);
            }
        }
        return out;
    }

    /** The anchors of the headings, as GitHub makes them (a repeated one gets -1, -2, …). */
    Set<String> anchors() {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String l : prose().values()) {
            Matcher m = HEADING.matcher(l);
            if (m.matches()) {
                String slug = slug(m.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                out.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return out;
    }

    /**
     * GitHub's heading anchor: the text lower-cased, with inline markup and every character other
     * than a letter, a digit, a space, '-' or '_' removed, and spaces turned into '-'.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                b.appendCodePoint(c);
            } else if (c == ' ') {
                b.append('-');
            }
        });
        return b.toString();
    }

    /** One link: where it is and where it points. */
    record Link(Path file, int line, String target) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line + " -> " + target;
        }
    }

    /** Every link outside code, in order. */
    List<Link> links() {
        List<Link> out = new ArrayList<>();
        prose().forEach((n, l) -> {
            Matcher m = LINK.matcher(INLINE_CODE.matcher(l).replaceAll(""));
            while (m.find()) {
                out.add(new Link(file, n, m.group(2)));
            }
        });
        return out;
    }

    /**
     * The rows of every pipe table whose header's first cell is {@code firstHeader}, as cells with
     * the surrounding spaces trimmed (the header and separator rows left out).
     */
    List<List<String>> tableRows(String firstHeader) {
        List<List<String>> out = new ArrayList<>();
        boolean inTable = false;
        boolean wanted = false;
        for (String l : prose().values()) {
            if (!l.startsWith("|")) {
                inTable = false;
                continue;
            }
            List<String> cells = cells(l);
            if (!inTable) {
                inTable = true;
                wanted = !cells.isEmpty() && cells.get(0).equals(firstHeader);
                continue;
            }
            if (wanted && !cells.isEmpty() && !cells.get(0).matches("-+:?|:?-+:?")) {
                out.add(cells);
            }
        }
        return out;
    }

    private static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        List<String> out = new ArrayList<>();
        for (String c : inner.split("\\|", -1)) {
            out.add(c.strip());
        }
        return out;
    }

    /**
     * The first fenced block of the given info string (e.g. "sh") after the heading named
     * {@code heading}, without its fence lines.
     */
    String block(String heading, String info) {
        boolean after = false;
        boolean inBlock = false;
        boolean fenced = false;
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            if (inBlock) {
                if (FENCE.matcher(l).find()) {
                    return b.toString();
                }
                b.append(l).append('\n');
                continue;
            }
            if (FENCE.matcher(l).find()) {
                if (after && !fenced && l.strip().equals("```" + info)) {
                    inBlock = true;
                    continue;
                }
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(l);
            if (!fenced && m.matches()) {
                after = m.group(2).equals(heading);
            }
        }
        throw new AssertionError("no ```" + info + " block under the heading '" + heading + "' in " + file);
    }
}
