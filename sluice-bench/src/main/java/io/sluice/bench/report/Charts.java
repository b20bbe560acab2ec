package io.sluice.bench.report;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG charts of the report's tables, drawn headless with JFreeChart. */
final class Charts {
  static final int WIDTH = 900;
  static final int HEIGHT = 480;
  private static final Color[] COLORS = {
    new Color(0xB0, 0x5A, 0x2C),
    new Color(0x2C, 0x6E, 0xB0),
    new Color(0x4C, 0x9A, 0x4C),
    new Color(0x8C, 0x5A, 0xB0),
    new Color(0x99, 0x99, 0x99)
  };

  private Charts() {}

  /** Grouped bars: one group per category, one bar per series, value labels on the bars. */
  static void bars(Table table, Path png) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Map.Entry<String, Map<String, Double>> s : table.series.entrySet()) {
      for (Map.Entry<String, Double> point : s.getValue().entrySet()) {
        data.addValue(point.getValue(), s.getKey(), point.getKey());
      }
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            table.title, null, table.valueAxis, data, PlotOrientation.VERTICAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.getDomainAxis().setMaximumCategoryLabelLines(2);
    BarRenderer renderer = (BarRenderer) plot.getRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setItemMargin(0.05);
    renderer.setDefaultItemLabelGenerator(
        new StandardCategoryItemLabelGenerator("{2}", new java.text.DecimalFormat("#,##0.#")));
    renderer.setDefaultItemLabelsVisible(true);
    renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    for (int i = 0; i < table.series.size(); i++) {
      renderer.setSeriesPaint(i, COLORS[i % COLORS.length]);
    }
    if (table.logScale) {
      LogAxis axis = new LogAxis(table.valueAxis);
      axis.setBase(10);
      axis.setTickUnit(new NumberTickUnit(1));
      axis.setNumberFormatOverride(new java.text.DecimalFormat("#,##0"));
      double smallest = Double.MAX_VALUE;
      double largest = 0;
      for (Map<String, Double> s : table.series.values()) {
        for (double v : s.values()) {
          smallest = Math.min(smallest, v);
          largest = Math.max(largest, v);
        }
      }
      double floor = Math.pow(10, Math.floor(Math.log10(Math.max(1, smallest))));
      axis.setRange(floor, Math.pow(10, Math.ceil(Math.log10(largest * 1.5))));
      plot.setRangeAxis(axis);
      renderer.setBase(floor);
    } else {
      ((NumberAxis) plot.getRangeAxis()).setUpperMargin(0.15);
    }
    style(chart, table.captionLine());
    write(chart, png);
  }

  /** Lines over time: series name → points (x, y). */
  static void lines(
      String title,
      String caption,
      String xAxis,
      String yAxis,
      Map<String, List<double[]>> series,
      Path png)
      throws IOException {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Map.Entry<String, List<double[]>> s : series.entrySet()) {
      XYSeries xy = new XYSeries(s.getKey(), false, true);
      for (double[] point : s.getValue()) {
        xy.add(point[0], point[1]);
      }
      data.addSeries(xy);
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            title, xAxis, yAxis, data, PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    for (int i = 0; i < series.size(); i++) {
      plot.getRenderer().setSeriesPaint(i, COLORS[i % COLORS.length]);
    }
    style(chart, caption);
    write(chart, png);
  }

  private static void style(JFreeChart chart, String caption) {
    chart.setBackgroundPaint(Color.WHITE);
    chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    TextTitle subtitle = new TextTitle(caption, new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    subtitle.setMaximumLinesToDisplay(3);
    chart.addSubtitle(subtitle);
    chart.getPlot().setBackgroundPaint(new Color(0xF6, 0xF6, 0xF6));
  }

  private static void write(JFreeChart chart, Path png) throws IOException {
    Files.createDirectories(png.toAbsolutePath().getParent());
    ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
  }
}
