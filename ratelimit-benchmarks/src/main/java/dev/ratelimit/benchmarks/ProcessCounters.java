package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a process has used so far, from {@code /proc} (Linux): CPU time in user space and in the kernel, and the
 * context switches of all its threads (those that slept to wait, and those the scheduler took the CPU from).
 * Where {@code /proc} cannot be read, only the total CPU time is known, from the process handle.
 */
record ProcessCounters(long userNanos, long systemNanos, long switches) {

	/** Clock ticks per second of {@code /proc/<pid>/stat}: 100 on every Linux that matters here. */
	private static final long TICK_NANOS = 10_000_000L;

	static ProcessCounters of(Process process) {
		return of(process.toHandle());
	}

	/** Returns what this JVM has used so far. */
	static ProcessCounters self() {
		return of(ProcessHandle.current());
	}

	private static ProcessCounters of(ProcessHandle process) {
		Path proc = Path.of("/proc", String.valueOf(process.pid()));
		try {
			String stat = Files.readString(proc.resolve("stat"));
			// the fields after the command, which is in parentheses and may hold spaces
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			long user = Long.parseLong(fields[11]) * TICK_NANOS;
			long system = Long.parseLong(fields[12]) * TICK_NANOS;
			long switches = 0;
			try (DirectoryStream<Path> tasks = Files.newDirectoryStream(proc.resolve("task"))) {
				for (Path task : tasks) {
					switches += switches(task.resolve("status"));
				}
			}
			return new ProcessCounters(user, system, switches);
		}
		catch (IOException | RuntimeException ex) {
			long total = process.info().totalCpuDuration().orElseThrow(
					() -> new IllegalStateException("No CPU time for process " + process.pid())).toNanos();
			return new ProcessCounters(total, 0, 0);
		}
	}

	private static long switches(Path status) {
		long switches = 0;
		try {
			for (String line : Files.readAllLines(status)) {
				if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
					switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
				}
			}
		}
		catch (IOException ex) {
			// a thread that ended meanwhile
		}
		return switches;
	}

	long cpuNanos() {
		return this.userNanos + this.systemNanos;
	}

	ProcessCounters since(ProcessCounters earlier) {
		return new ProcessCounters(this.userNanos - earlier.userNanos, this.systemNanos - earlier.systemNanos,
				this.switches - earlier.switches);
	}

}
