package dev.exactly.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every link between README.md, BENCHMARKS.md and the pages of docs/ resolves: the file it names
 * exists, and the #anchor it names is a heading of that file (GitHub's anchors). Links to other
 * sites are not followed.
 */
class DocsLinksTest {

    @Test
    void everyInternalLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path doc : Markdown.userDocs()) {
            for (Markdown.Link link : Markdown.read(doc).links()) {
                String target = link.target();
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) { // https:, mailto:, …
                    continue;
                }
                checked++;
                String problem = problem(doc, target);
                if (problem != null) {
                    broken.add(link + ": " + problem);
                }
            }
        }
        assertTrue(checked > 100, "the link reader finds the links (" + checked + ")");
        assertEquals(List.of(), broken, "broken links");
    }

    /** Every page of docs/ can be reached from README.md, so a newcomer finds it without grep. */
    @Test
    void everyPageIsLinkedFromTheReadme() {
        Set<String> linked = new TreeSet<>();
        for (Markdown.Link link : Markdown.read("README.md").links()) {
            linked.add(link.target().replaceFirst("#.*", ""));
        }
        Set<String> missing = new TreeSet<>();
        for (Path doc : Markdown.userDocs()) {
            String relative = Markdown.ROOT.relativize(doc).toString();
            if (relative.startsWith("docs/") && !linked.contains(relative)) {
                missing.add(relative);
            }
        }
        assertEquals(Set.of(), missing, "pages of docs/ that README.md does not link");
    }

    /** The checker itself: a missing file and a missing anchor are caught, a good anchor passes. */
    @Test
    void theCheckerCatchesWhatItMust() {
        Path readme = Markdown.ROOT.resolve("README.md");
        assertNull(problem(readme, "docs/queues.md#options"));
        assertNull(problem(readme, "#try-it"));
        assertTrue(problem(readme, "docs/no-such-page.md") != null);
        assertTrue(problem(readme, "docs/queues.md#no-such-heading") != null);
        assertTrue(problem(readme, "#no-such-heading") != null);
    }

    private static String problem(Path from, String target) {
        int hash = target.indexOf('#');
        String path = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
        if (!file.startsWith(Markdown.ROOT)) {
            return "points outside the repository";
        }
        if (!Files.exists(file)) {
            return "no such file " + Markdown.ROOT.relativize(file);
        }
        if (anchor == null) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        Set<String> anchors = Markdown.read(file).anchors();
        return anchors.contains(anchor) ? null : "no heading with the anchor #" + anchor + " in " + Markdown.ROOT.relativize(file)
                + " (its anchors: " + anchors + ")";
    }
}
