package dev.ratelimit.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import javax.imageio.ImageIO;

/**
 * Draws the throughput chart with Java2D: one group of bars per system, one bar per thread count,
 * whiskers from the smallest to the largest measurement.
 */
final class Chart {

	private static final int WIDTH = 1400;

	private static final int HEIGHT = 720;

	private static final int LEFT = 100;

	private static final int RIGHT = 90;

	private static final int TOP = 70;

	private static final int BOTTOM = 210;

	private static final Color[] COLORS = { new Color(0x9ecae1), new Color(0x4292c6), new Color(0x08306b) };

	private Chart() {
	}

	/** Returns the bars of a run: each system at 1, 8 and 64 threads, our asynchronous API and the physical limits. */
	static Map<String, Map<Integer, Stats>> series(RunResults run) {
		Map<String, Map<Integer, Stats>> series = new LinkedHashMap<>();
		for (String system : Labels.systems()) {
			Map<Integer, Stats> byThreads = new LinkedHashMap<>();
			for (int threads : Measurements.CONCURRENCY) {
				byThreads.put(threads, run.throughput(system, threads));
			}
			series.put(Labels.chart(system), byThreads);
		}
		for (String system : Contenders.OURS) {
			Map<Integer, Stats> byDepth = new LinkedHashMap<>();
			for (int depth : Measurements.CONCURRENCY) {
				byDepth.put(depth, run.async(system, depth));
			}
			if (byDepth.values().stream().anyMatch((stats) -> stats.count() > 0)) {
				series.put(Labels.of(system).replace("ours: ", "async: "), byDepth);
			}
		}
		for (String script : Measurements.PHYSICAL_SCRIPTS) {
			Map<Integer, Stats> byDepth = new LinkedHashMap<>();
			for (int depth : Measurements.CONCURRENCY) {
				byDepth.put(depth, run.physical(script, depth));
			}
			series.put("physical: " + script, byDepth);
		}
		return series;
	}

	static void write(Map<String, Map<Integer, Stats>> series, Path file) throws IOException {
		System.setProperty("java.awt.headless", "true");
		BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
		g.setColor(Color.WHITE);
		g.fillRect(0, 0, WIDTH, HEIGHT);
		double max = 0;
		for (Map<Integer, Stats> bars : series.values()) {
			for (Stats stats : bars.values()) {
				if (!Double.isNaN(stats.max())) {
					max = Math.max(max, stats.max());
				}
			}
		}
		double step = niceStep(max / 6);
		double top = Math.ceil(max / step) * step;
		int plotWidth = WIDTH - LEFT - RIGHT;
		int plotHeight = HEIGHT - TOP - BOTTOM;
		g.setColor(Color.BLACK);
		g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
		g.drawString("Decisions per second, allowed path, 10,000 keys (median; whiskers: min–max)", LEFT, 32);
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
		g.drawString("Physical limit: the same script over one raw connection; async: our tryAcquireAsync from one thread;"
				+ " both with 1 / 8 / 64 in flight", LEFT, 54);
		// grid and y axis
		for (double value = 0; value <= top + step / 2; value += step) {
			int y = TOP + plotHeight - (int) Math.round(value / top * plotHeight);
			g.setColor(new Color(0xe0e0e0));
			g.drawLine(LEFT, y, LEFT + plotWidth, y);
			g.setColor(Color.DARK_GRAY);
			String label = String.format(Locale.ROOT, "%,d", Math.round(value));
			g.drawString(label, LEFT - 10 - g.getFontMetrics().stringWidth(label), y + 5);
		}
		g.setColor(Color.BLACK);
		g.drawLine(LEFT, TOP + plotHeight, LEFT + plotWidth, TOP + plotHeight);
		// bars
		int groups = series.size();
		double groupWidth = (double) plotWidth / groups;
		double barWidth = groupWidth * 0.8 / 3;
		int group = 0;
		for (Map.Entry<String, Map<Integer, Stats>> entry : series.entrySet()) {
			double x0 = LEFT + group * groupWidth + groupWidth * 0.1;
			int bar = 0;
			for (Stats stats : entry.getValue().values()) {
				if (!Double.isNaN(stats.median())) {
					int x = (int) Math.round(x0 + bar * barWidth);
					int h = (int) Math.round(stats.median() / top * plotHeight);
					g.setColor(COLORS[bar % COLORS.length]);
					g.fillRect(x, TOP + plotHeight - h, (int) Math.round(barWidth) - 2, h);
					int cx = x + (int) Math.round(barWidth / 2) - 1;
					int yMin = TOP + plotHeight - (int) Math.round(stats.min() / top * plotHeight);
					int yMax = TOP + plotHeight - (int) Math.round(stats.max() / top * plotHeight);
					g.setColor(Color.BLACK);
					g.setStroke(new BasicStroke(1.2f));
					g.drawLine(cx, yMin, cx, yMax);
					g.drawLine(cx - 3, yMin, cx + 3, yMin);
					g.drawLine(cx - 3, yMax, cx + 3, yMax);
				}
				bar++;
			}
			drawRotated(g, entry.getKey(), (int) Math.round(x0 + groupWidth * 0.4), TOP + plotHeight + 12);
			group++;
		}
		// legend
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
		String[] names = { "1 thread (or in flight)", "8", "64" };
		int lx = WIDTH - RIGHT;
		for (String name : names) {
			lx -= 22 + g.getFontMetrics().stringWidth(name) + 18;
		}
		for (int i = 0; i < names.length; i++) {
			g.setColor(COLORS[i]);
			g.fillRect(lx, 44, 16, 16);
			g.setColor(Color.BLACK);
			g.drawString(names[i], lx + 22, 57);
			lx += 22 + g.getFontMetrics().stringWidth(names[i]) + 18;
		}
		g.dispose();
		ImageIO.write(image, "png", file.toFile());
	}

	private static void drawRotated(Graphics2D g, String text, int x, int y) {
		AffineTransform saved = g.getTransform();
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
		FontMetrics metrics = g.getFontMetrics();
		g.translate(x, y);
		g.rotate(Math.toRadians(35));
		g.setColor(Color.BLACK);
		g.drawString(text, 0, metrics.getAscent() / 2);
		g.setTransform(saved);
	}

	private static double niceStep(double raw) {
		if (raw <= 0) {
			return 1;
		}
		double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
		for (double nice : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (raw <= nice * magnitude) {
				return nice * magnitude;
			}
		}
		return 10 * magnitude;
	}

}
