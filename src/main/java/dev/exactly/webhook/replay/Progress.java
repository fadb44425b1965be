package dev.exactly.webhook.replay;

import java.io.PrintWriter;

/**
 * Shows a replay's progress on the error stream: a redrawn bar on a terminal, or a plain line at
 * every tenth of the way otherwise (logs, CI), or nothing.
 */
public final class Progress {

    /** How progress is shown. */
    public enum Mode {
        /** A bar when the console is a terminal, lines otherwise. */
        AUTO,
        /** A redrawn bar (\r). */
        BAR,
        /** A line at every 10 %. */
        LINES,
        /** Nothing. */
        NONE
    }

    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final Mode mode;
    private final int total;
    private int lastTenth;
    private boolean barShown;

    Progress(PrintWriter err, Mode mode, int total) {
        this.err = err;
        this.mode = mode == Mode.AUTO ? (System.console() != null ? Mode.BAR : Mode.LINES) : mode;
        this.total = total;
    }

    /** After each post. */
    void update(ReplayCounts c) {
        int done = c.posted();
        if (mode == Mode.BAR) {
            int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
            err.print("\r[" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + done + "/" + total
                    + "  stored " + c.stored() + "  duplicates " + c.duplicates() + "  rejected " + c.rejected());
            err.flush();
            barShown = true;
        } else if (mode == Mode.LINES) {
            int tenth = total == 0 ? 10 : (int) ((long) done * 10 / total);
            if (tenth > lastTenth) {
                lastTenth = tenth;
                err.println("replay: " + done + "/" + total + " posted (stored " + c.stored() + ", duplicates "
                        + c.duplicates() + ", rejected " + c.rejected() + ", failed " + c.failed() + ")");
                err.flush();
            }
        }
    }

    /** Prints a note (e.g. a rejection) without garbling the bar. */
    void note(String text) {
        if (mode == Mode.NONE) {
            return;
        }
        if (barShown) {
            err.print("\r\033[K");
        }
        err.println(text);
        err.flush();
    }

    /** Ends the bar's line. */
    void finish() {
        if (barShown) {
            err.println();
            err.flush();
        }
    }
}
