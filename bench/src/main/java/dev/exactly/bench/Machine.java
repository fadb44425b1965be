package dev.exactly.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Facts about the machine a run happened on (Linux /proc, the JVM, git). */
final class Machine {

    private Machine() {
    }

    static void describe(Map<String, String> out) {
        out.put("CPU", cpuModel());
        out.put("cores (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        out.put("memory", memTotal());
        out.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        out.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        out.put("commit", git("rev-parse", "--short", "HEAD") + (git("status", "--porcelain").isBlank() ? "" : " (with uncommitted changes)"));
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2] + " (1/5/15 min)";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return "unknown";
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(java.util.Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return "unknown";
    }

    private static String git(String... args) {
        try {
            String[] cmd = new String[args.length + 1];
            cmd[0] = "git";
            System.arraycopy(args, 0, cmd, 1, args.length);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String s = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return s;
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }
}
