package dev.opcheck4j;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The harness's packages drawn as an SVG: each package a room (a box, with its number of top-level
 * classes), each import between two rooms an arrow (with the number of classes of the first room that
 * import one of the second's). Rooms are laid out in rows computed from the graph alone: the packages of
 * a cycle are condensed into one, each row holds those whose longest chain of importers is that long, so
 * every arrow between rows points down; a package in a cycle and the arrows of a cycle are red, drawn in
 * its row. The check families ({@code checks.<family>}) are one room, {@code checks.*}: one box per family
 * would be twenty boxes that all import the same few rooms. Everything is sorted: the same classes give the
 * same bytes.
 */
final class ArchitectureDrawing {
  private static final String ROOT = "dev.opcheck4j.";
  private static final int ROW = 130;
  private static final int GAP = 30;
  private static final int BOX_HEIGHT = 42;
  private static final int MARGIN = 30;
  private static final int TOP = 70;
  private static final double CHAR = 7.3;

  /**
   * The rooms and arrows.
   *
   * @param rooms each room's name (the package below {@code dev.opcheck4j}) and its number of top-level classes
   * @param arrows for each importing room, the rooms it imports and how many of its classes do
   */
  record Graph(Map<String, Integer> rooms, Map<String, Map<String, Integer>> arrows) {
    /** The number of arrows. */
    int arrowCount() {
      return arrows.values().stream().mapToInt(Map::size).sum();
    }

    /** The rooms in a cycle, sorted. */
    Set<String> inCycles() {
      Set<String> in = new TreeSet<>();
      components().stream().filter(c -> c.size() > 1).forEach(in::addAll);
      return in;
    }

    /** The cycles: each set of rooms that reach one another, with more than one room, sorted. */
    List<List<String>> cycles() {
      return components().stream().filter(c -> c.size() > 1).toList();
    }

    /** The strongly connected components (Tarjan's), each sorted, in the order of their first room. */
    List<List<String>> components() {
      Map<String, Integer> index = new HashMap<>();
      Map<String, Integer> low = new HashMap<>();
      Deque<String> stack = new ArrayDeque<>();
      Set<String> onStack = new TreeSet<>();
      List<List<String>> out = new ArrayList<>();
      int[] next = {0};
      for (String r : rooms.keySet()) {
        if (!index.containsKey(r)) {
          strongConnect(r, index, low, stack, onStack, out, next);
        }
      }
      out.replaceAll(c -> c.stream().sorted().toList());
      out.sort(Comparator.comparing(c -> c.get(0)));
      return out;
    }

    private void strongConnect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
        Set<String> onStack, List<List<String>> out, int[] next) {
      index.put(v, next[0]);
      low.put(v, next[0]);
      next[0]++;
      stack.push(v);
      onStack.add(v);
      for (String w : arrows.getOrDefault(v, Map.of()).keySet()) {
        if (!index.containsKey(w)) {
          strongConnect(w, index, low, stack, onStack, out, next);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        List<String> c = new ArrayList<>();
        String w;
        do {
          w = stack.pop();
          onStack.remove(w);
          c.add(w);
        } while (!w.equals(v));
        out.add(c);
      }
    }
  }

  private ArchitectureDrawing() {}

  /** The room of a package below {@code dev.opcheck4j}: the check families are one, {@code checks.*}. */
  static String room(String pkg) {
    String name = pkg.substring(ROOT.length());
    if (name.startsWith("checks.") && !name.equals("checks.builtin")) {
      return "checks.*";
    }
    return name;
  }

  /** The rooms and arrows of {@code classes} (those of {@code dev.opcheck4j} below its root). */
  static Graph of(JavaClasses classes) {
    Map<String, Integer> rooms = new TreeMap<>();
    Map<String, Map<String, Set<String>>> importers = new TreeMap<>();
    for (JavaClass c : classes) {
      if (!c.getPackageName().startsWith(ROOT)) {
        continue;
      }
      String from = room(c.getPackageName());
      if (c.isTopLevelClass()) {
        rooms.merge(from, 1, Integer::sum);
      } else {
        rooms.putIfAbsent(from, 0);
      }
      String owner = outermost(c).getName();
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType();
        if (!target.getPackageName().startsWith(ROOT)) {
          continue;
        }
        String to = room(target.getPackageName());
        if (!to.equals(from)) {
          importers.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>()).add(owner);
        }
      }
    }
    // an import of a package these classes do not hold (the reports module's) is no arrow: it has no room
    Map<String, Map<String, Integer>> arrows = new TreeMap<>();
    importers.forEach((from, tos) -> tos.forEach((to, names) -> {
      if (rooms.containsKey(to)) {
        arrows.computeIfAbsent(from, k -> new TreeMap<>()).put(to, names.size());
      }
    }));
    return new Graph(rooms, arrows);
  }

  private static JavaClass outermost(JavaClass c) {
    JavaClass o = c;
    while (o.getEnclosingClass().isPresent()) {
      o = o.getEnclosingClass().get();
    }
    return o;
  }

  /** A place in a row: a room's box, or where an arrow that crosses the row passes it ({@code room} null). */
  private static final class Slot {
    final String room;
    final double width;
    double x;
    double order;

    Slot(String room, double width) {
      this.room = room;
      this.width = width;
    }

    double centre() {
      return x + width / 2;
    }
  }

  /** {@code graph} as an SVG document titled {@code title}. */
  static String svg(Graph graph, String title) {
    List<List<String>> components = graph.components();
    Map<String, Integer> componentOf = new HashMap<>();
    for (int i = 0; i < components.size(); i++) {
      for (String r : components.get(i)) {
        componentOf.put(r, i);
      }
    }
    // each component's row: the longest chain of importing components above it
    int[] rowOf = new int[components.size()];
    boolean changed = true;
    while (changed) {
      changed = false;
      for (var from : graph.arrows().entrySet()) {
        int a = componentOf.get(from.getKey());
        for (String to : from.getValue().keySet()) {
          int b = componentOf.get(to);
          if (a != b && rowOf[b] < rowOf[a] + 1) {
            rowOf[b] = rowOf[a] + 1;
            changed = true;
          }
        }
      }
    }
    int rowCount = 0;
    for (int r : rowOf) {
      rowCount = Math.max(rowCount, r + 1);
    }
    List<List<Slot>> rows = new ArrayList<>();
    for (int i = 0; i < rowCount; i++) {
      rows.add(new ArrayList<>());
    }
    Map<String, Slot> boxes = new TreeMap<>();
    Map<String, Integer> row = new TreeMap<>();
    for (String r : graph.rooms().keySet()) {
      row.put(r, rowOf[componentOf.get(r)]);
      Slot slot = new Slot(r, width(graph, r));
      slot.order = componentOf.get(r) * 1000.0 + rows.get(row.get(r)).size();
      boxes.put(r, slot);
      rows.get(row.get(r)).add(slot);
    }
    // an arrow over several rows passes each row between at a slot of its own, beside the boxes
    Map<String, List<Slot>> passes = new TreeMap<>();
    Map<Slot, List<Slot>> up = new java.util.IdentityHashMap<>();
    Map<Slot, List<Slot>> down = new java.util.IdentityHashMap<>();
    graph.arrows().forEach((from, tos) -> tos.keySet().forEach(to -> {
      List<Slot> chain = new ArrayList<>();
      chain.add(boxes.get(from));
      for (int r = row.get(from) + 1; r < row.get(to); r++) {
        Slot pass = new Slot(null, 6);
        pass.order = 1e9;
        rows.get(r).add(pass);
        chain.add(pass);
      }
      chain.add(boxes.get(to));
      passes.put(from + "\u0000" + to, chain.subList(1, chain.size() - 1));
      if (row.get(to) > row.get(from)) {
        for (int k = 0; k + 1 < chain.size(); k++) {
          down.computeIfAbsent(chain.get(k), x -> new ArrayList<>()).add(chain.get(k + 1));
          up.computeIfAbsent(chain.get(k + 1), x -> new ArrayList<>()).add(chain.get(k));
        }
      }
    }));
    order(rows, up, down, componentOf);
    double widest = 0;
    for (List<Slot> r : rows) {
      widest = Math.max(widest, rowWidth(r));
    }
    String summary = graph.rooms().size() + " packages (boxes: classes in each), " + graph.arrowCount()
        + " imports (arrows: classes importing), " + graph.cycles().size() + " cycles over " + graph.inCycles().size()
        + " packages (red); checks.* is the check families";
    double width = Math.max(widest, summary.length() * 6.6) + 2 * MARGIN;
    for (List<Slot> r : rows) {
      double x = (width - rowWidth(r)) / 2;
      Slot before = null;
      for (Slot slot : r) {
        x += before == null ? 0 : gap(before, slot);
        slot.x = x;
        x += slot.width;
        before = slot;
      }
    }
    double height = TOP + rowCount * ROW - (ROW - BOX_HEIGHT) + 2 * MARGIN;
    Set<String> red = graph.inCycles();
    StringBuilder s = new StringBuilder();
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(n(width)).append("\" height=\"").append(n(height))
        .append("\" viewBox=\"0 0 ").append(n(width)).append(' ').append(n(height)).append("\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n");
    s.append("<defs>\n");
    for (String[] m : List.of(new String[] {"arrow", "#555"}, new String[] {"arrow-red", "#c00"})) {
      s.append("  <marker id=\"").append(m[0]).append("\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\""
          + " markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"").append(m[1])
          .append("\"/></marker>\n");
    }
    s.append("</defs>\n");
    s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    s.append("<text x=\"").append(MARGIN).append("\" y=\"28\" font-size=\"17\" font-weight=\"bold\">").append(escape(title))
        .append("</text>\n");
    s.append("<text x=\"").append(MARGIN).append("\" y=\"50\" font-size=\"13\" fill=\"#333\">").append(escape(summary))
        .append("</text>\n");
    // arrows first, boxes over them; each end spread over its box, in the order of what is at the other end
    Map<String, List<String[]>> out = new TreeMap<>();
    Map<String, List<String[]>> in = new TreeMap<>();
    graph.arrows().forEach((from, tos) -> tos.keySet().forEach(to -> {
      out.computeIfAbsent(from, k -> new ArrayList<>()).add(new String[] {from, to});
      in.computeIfAbsent(to, k -> new ArrayList<>()).add(new String[] {from, to});
    }));
    out.values().forEach(l -> l.sort(Comparator.comparingDouble((String[] e) -> next(passes, boxes, e, true)).thenComparing(e -> e[1])));
    in.values().forEach(l -> l.sort(Comparator.comparingDouble((String[] e) -> next(passes, boxes, e, false)).thenComparing(e -> e[0])));
    StringBuilder labels = new StringBuilder();
    for (var from : graph.arrows().entrySet()) {
      for (var to : from.getValue().entrySet()) {
        Slot a = boxes.get(from.getKey());
        Slot b = boxes.get(to.getKey());
        int ra = row.get(a.room);
        int rb = row.get(b.room);
        boolean cycle = componentOf.get(a.room).equals(componentOf.get(b.room)) && red.contains(a.room);
        String colour = cycle ? "#c00" : "#555";
        double x1 = spread(a, out.get(a.room), to.getKey(), 1);
        double x2 = spread(b, in.get(b.room), from.getKey(), 0);
        StringBuilder path = new StringBuilder();
        double lx;
        double ly;
        if (ra == rb) {
          // within a row (a cycle): an arc over the boxes from left to right, under them from right to left
          boolean over = a.centre() < b.centre();
          double y = TOP + ra * ROW + (over ? 0 : BOX_HEIGHT);
          double lift = (over ? -1 : 1) * (26 + Math.abs(x2 - x1) / 10);
          path.append("M ").append(n(x1)).append(' ').append(n(y)).append(" C ").append(n(x1)).append(' ').append(n(y + lift))
              .append(", ").append(n(x2)).append(' ').append(n(y + lift)).append(", ").append(n(x2)).append(' ').append(n(y));
          lx = (x1 + x2) / 2;
          ly = y + lift * 0.75;
        } else {
          double x = x1;
          double y = TOP + ra * ROW + BOX_HEIGHT;
          path.append("M ").append(n(x)).append(' ').append(n(y));
          for (Slot pass : passes.get(from.getKey() + "\u0000" + to.getKey())) {
            double top = TOP + row(rows, pass) * ROW;
            curve(path, x, y, pass.centre(), top);
            path.append(" L ").append(n(pass.centre())).append(' ').append(n(top + BOX_HEIGHT));
            x = pass.centre();
            y = top + BOX_HEIGHT;
          }
          double y2 = TOP + rb * ROW;
          curve(path, x, y, x2, y2);
          // the label just above the head, where the arrows into a box are spread apart
          double dy = (y2 - y) / 2;
          double t = 1;
          while (t > 0 && bezier(y, y + dy, y2 - dy, y2, t) > y2 - 15) {
            t -= 0.01;
          }
          lx = bezier(x, x, x2, x2, t);
          ly = y2 - 15;
        }
        s.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(colour)
            .append("\" stroke-opacity=\"").append(cycle ? "0.9" : "0.5").append("\" stroke-width=\"")
            .append(cycle ? "1.6" : "1").append("\" marker-end=\"url(#").append(cycle ? "arrow-red" : "arrow").append(")\">")
            .append("<title>").append(escape(a.room + " imports " + b.room + ": " + to.getValue() + (to.getValue() == 1 ? " class" : " classes"))).append("</title></path>\n");
        String text = Integer.toString(to.getValue());
        double tw = text.length() * 6.2 + 4;
        labels.append("<rect x=\"").append(n(lx - tw / 2)).append("\" y=\"").append(n(ly - 7)).append("\" width=\"")
            .append(n(tw)).append("\" height=\"12\" rx=\"2\" fill=\"white\" fill-opacity=\"0.9\"/>")
            .append("<text x=\"").append(n(lx)).append("\" y=\"").append(n(ly + 3)).append("\" font-size=\"10\" text-anchor=\"middle\" fill=\"")
            .append(colour).append("\">").append(text).append("</text>\n");
      }
    }
    for (Slot b : boxes.values()) {
      boolean cycle = red.contains(b.room);
      double y = TOP + row.get(b.room) * ROW;
      s.append("<rect x=\"").append(n(b.x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(b.width))
          .append("\" height=\"").append(BOX_HEIGHT).append("\" rx=\"5\" fill=\"").append(cycle ? "#fde2e2" : "#eef3fb")
          .append("\" stroke=\"").append(cycle ? "#c00" : "#4a6a9a").append("\" stroke-width=\"").append(cycle ? "2" : "1.2")
          .append("\"/>\n");
      s.append("<text x=\"").append(n(b.centre())).append("\" y=\"").append(n(y + 18)).append("\" font-size=\"13\""
          + " font-weight=\"bold\" text-anchor=\"middle\">").append(escape(b.room)).append("</text>\n");
      int classes = graph.rooms().get(b.room);
      s.append("<text x=\"").append(n(b.centre())).append("\" y=\"").append(n(y + 34)).append("\" font-size=\"11\""
          + " text-anchor=\"middle\" fill=\"#333\">").append(classes).append(classes == 1 ? " class" : " classes").append("</text>\n");
    }
    s.append(labels);
    s.append("</svg>\n");
    return s.toString();
  }

  /** A curve from {@code (x1, y1)} down to {@code (x2, y2)}, leaving and arriving upright. */
  private static void curve(StringBuilder path, double x1, double y1, double x2, double y2) {
    double dy = (y2 - y1) / 2;
    path.append(" C ").append(n(x1)).append(' ').append(n(y1 + dy)).append(", ").append(n(x2)).append(' ')
        .append(n(y2 - dy)).append(", ").append(n(x2)).append(' ').append(n(y2));
  }

  /** Where arrow {@code e} goes first after leaving its box ({@code leaving}), or comes from last before its head. */
  private static double next(Map<String, List<Slot>> passes, Map<String, Slot> boxes, String[] e, boolean leaving) {
    List<Slot> p = passes.get(e[0] + "\u0000" + e[1]);
    if (p.isEmpty()) {
      return boxes.get(leaving ? e[1] : e[0]).centre();
    }
    return (leaving ? p.get(0) : p.get(p.size() - 1)).centre();
  }

  private static int row(List<List<Slot>> rows, Slot slot) {
    for (int i = 0; i < rows.size(); i++) {
      for (Slot s : rows.get(i)) {
        if (s == slot) {
          return i;
        }
      }
    }
    throw new IllegalArgumentException("no row holds the slot");
  }

  private static double gap(Slot a, Slot b) {
    return a.room != null && b.room != null ? GAP : a.room == null && b.room == null ? 4 : 14;
  }

  private static double rowWidth(List<Slot> r) {
    double w = 0;
    for (int i = 0; i < r.size(); i++) {
      w += r.get(i).width + (i == 0 ? 0 : gap(r.get(i - 1), r.get(i)));
    }
    return w;
  }

  /**
   * Orders each row by the mean position of what it is joined to in the row above (going down) or below
   * (going up), a few sweeps each way; the rooms of a cycle stay side by side, in name order.
   */
  private static void order(List<List<Slot>> rows, Map<Slot, List<Slot>> up, Map<Slot, List<Slot>> down,
      Map<String, Integer> componentOf) {
    for (List<Slot> r : rows) {
      r.sort(Comparator.comparingDouble((Slot x) -> x.order));
      renumber(r);
    }
    for (int sweep = 0; sweep < 12; sweep++) {
      boolean goingDown = sweep % 2 == 0;
      for (int k = 1; k < rows.size(); k++) {
        List<Slot> r = rows.get(goingDown ? k : rows.size() - 1 - k);
        Map<Slot, List<Slot>> joined = goingDown ? up : down;
        Map<Slot, Double> mean = new java.util.IdentityHashMap<>();
        for (Slot slot : r) {
          List<Slot> o = joined.getOrDefault(slot, List.of());
          mean.put(slot, o.isEmpty() ? slot.order : o.stream().mapToDouble(x -> x.order).average().orElseThrow());
        }
        // the rooms of one cycle move together, at their mean
        Map<Integer, double[]> cycle = new HashMap<>();
        for (Slot slot : r) {
          if (slot.room != null) {
            cycle.computeIfAbsent(componentOf.get(slot.room), c -> new double[2]);
            cycle.get(componentOf.get(slot.room))[0] += mean.get(slot);
            cycle.get(componentOf.get(slot.room))[1]++;
          }
        }
        r.sort(Comparator.comparingDouble((Slot x) -> x.room == null ? mean.get(x)
                : cycle.get(componentOf.get(x.room))[0] / cycle.get(componentOf.get(x.room))[1])
            .thenComparing(x -> x.room == null ? "" : x.room));
        renumber(r);
      }
    }
  }

  /** Each slot's position in its row, from 0 to 1, for the rows next to it to be ordered by. */
  private static void renumber(List<Slot> r) {
    for (int i = 0; i < r.size(); i++) {
      r.get(i).order = (i + 0.5) / r.size();
    }
  }

  private static double width(Graph graph, String room) {
    int classes = graph.rooms().get(room);
    String second = classes + (classes == 1 ? " class" : " classes");
    int ends = Math.max(graph.arrows().getOrDefault(room, Map.of()).size(),
        (int) graph.arrows().values().stream().filter(m -> m.containsKey(room)).count());
    return Math.max(Math.max(room.length() * (CHAR + 0.6), second.length() * 6.4) + 22, ends * 19 + 16);
  }

  /** Where the arrow to (or from) {@code other} leaves (or enters) {@code box}: the ends spread over its width. */
  private static double spread(Slot box, List<String[]> ends, String other, int side) {
    int k = 0;
    for (int i = 0; i < ends.size(); i++) {
      if (ends.get(i)[side].equals(other)) {
        k = i;
      }
    }
    double usable = box.width - 16;
    return box.x + 8 + usable * (k + 0.5) / ends.size();
  }

  private static double bezier(double p0, double p1, double p2, double p3, double t) {
    double u = 1 - t;
    return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
  }

  private static String n(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
