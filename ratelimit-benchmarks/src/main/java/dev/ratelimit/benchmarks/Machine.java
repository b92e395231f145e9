package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the machine is: processor, cores, memory, operating system and load.
 */
final class Machine {

	private Machine() {
	}

	static String describe() {
		String model = "unknown processor";
		long memoryKb = 0;
		try {
			for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
				if (line.startsWith("model name")) {
					model = line.substring(line.indexOf(':') + 1).trim();
					break;
				}
			}
			for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
				if (line.startsWith("MemTotal:")) {
					memoryKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
				}
			}
		}
		catch (IOException ex) {
			// not Linux: describe what the JVM knows
		}
		return String.format(Locale.ROOT, "%d CPUs (`nproc`), %s, %.1f GiB of memory, %s %s (%s)",
				Runtime.getRuntime().availableProcessors(), model, memoryKb / 1024.0 / 1024.0,
				System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
	}

	static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException ex) {
			return "?";
		}
	}

}
