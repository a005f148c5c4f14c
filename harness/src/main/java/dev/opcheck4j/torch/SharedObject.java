package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the dynamic loader reads from a 64-bit little-endian ELF shared library, read in plain Java
 * without loading it: its soname, the libraries it needs ({@code DT_NEEDED}), its undefined symbols
 * (with the version each asks for), and whether it defines a symbol (through its GNU hash table, so
 * a library of 50,000 symbols is not read whole).
 */
final class SharedObject {
  private static final int SHT_SYMTAB = 2;
  private static final int SHT_DYNAMIC = 6;
  private static final int SHT_DYNSYM = 11;
  private static final int SHT_GNU_HASH = 0x6ffffff6;
  private static final int SHT_GNU_VERNEED = 0x6ffffffe;
  private static final int SHT_GNU_VERSYM = 0x6fffffff;
  private static final long DT_NEEDED = 1;
  private static final long DT_SONAME = 14;
  private static final int STB_WEAK = 2;

  /** An undefined symbol: its name, the version it asks for and that version's library (both null when untagged). */
  record Undefined(String name, String version, String versionFile) {}

  private final Path path;
  private final String soname;
  private final List<String> needed;
  private final ByteBuffer dynsym;
  private final ByteBuffer dynstr;
  private final ByteBuffer gnuHash;
  private final ByteBuffer versym;
  private final Map<Integer, String[]> versionNeeds;

  private SharedObject(Path path, String soname, List<String> needed, ByteBuffer dynsym, ByteBuffer dynstr,
      ByteBuffer gnuHash, ByteBuffer versym, Map<Integer, String[]> versionNeeds) {
    this.path = path;
    this.soname = soname;
    this.needed = needed;
    this.dynsym = dynsym;
    this.dynstr = dynstr;
    this.gnuHash = gnuHash;
    this.versym = versym;
    this.versionNeeds = versionNeeds;
  }

  /** Reads {@code file}'s dynamic section and symbols; empty when it is no 64-bit little-endian ELF file with them. */
  static Optional<SharedObject> read(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer h = section(ch, 0, Math.min(64, ch.size()));
      if (h.limit() < 64 || h.getInt(0) != 0x464c457f || h.get(4) != 2 || h.get(5) != 1) {
        return Optional.empty();
      }
      long shoff = h.getLong(0x28);
      int shentsize = Short.toUnsignedInt(h.getShort(0x3a));
      int shnum = Short.toUnsignedInt(h.getShort(0x3c));
      if (shoff <= 0 || shentsize < 64 || shnum == 0 || shoff + (long) shnum * shentsize > ch.size()) {
        return Optional.empty();
      }
      ByteBuffer sh = section(ch, shoff, (long) shnum * shentsize);
      ByteBuffer dynamic = null;
      ByteBuffer dynsym = null;
      ByteBuffer dynstr = null;
      ByteBuffer gnuHash = null;
      ByteBuffer versym = null;
      ByteBuffer verneed = null;
      ByteBuffer dynamicStr = null;
      ByteBuffer verneedStr = null;
      for (int i = 0; i < shnum; i++) {
        int at = i * shentsize;
        int type = sh.getInt(at + 4);
        long offset = sh.getLong(at + 0x18);
        long size = sh.getLong(at + 0x20);
        int link = sh.getInt(at + 0x28);
        if (type != SHT_DYNAMIC && type != SHT_DYNSYM && type != SHT_GNU_HASH && type != SHT_GNU_VERSYM
            && type != SHT_GNU_VERNEED) {
          continue;
        }
        if (offset < 0 || size < 0 || offset + size > ch.size() || link >= shnum) {
          return Optional.empty();
        }
        ByteBuffer body = section(ch, offset, size);
        switch (type) {
          case SHT_DYNAMIC -> {
            dynamic = body;
            dynamicStr = linked(ch, sh, link * shentsize);
          }
          case SHT_DYNSYM -> {
            dynsym = body;
            dynstr = linked(ch, sh, link * shentsize);
          }
          case SHT_GNU_HASH -> gnuHash = body;
          case SHT_GNU_VERSYM -> versym = body;
          default -> {
            verneed = body;
            verneedStr = linked(ch, sh, link * shentsize);
          }
        }
      }
      if (dynamic == null || dynsym == null) {
        return Optional.empty();
      }
      String soname = null;
      List<String> needed = new ArrayList<>();
      for (int at = 0; at + 16 <= dynamic.limit(); at += 16) {
        long tag = dynamic.getLong(at);
        if (tag == 0) {
          break;
        }
        if (tag == DT_NEEDED) {
          needed.add(string(dynamicStr, dynamic.getLong(at + 8)));
        } else if (tag == DT_SONAME) {
          soname = string(dynamicStr, dynamic.getLong(at + 8));
        }
      }
      Map<Integer, String[]> needs = new HashMap<>();
      if (verneed != null) {
        // Elf64_Verneed {vn_version, vn_cnt, vn_file, vn_aux, vn_next}, each with vn_cnt Elf64_Vernaux
        // {vna_hash, vna_flags, vna_other, vna_name, vna_next}; a symbol's versym entry is a vna_other
        for (int at = 0, n = 0; at + 16 <= verneed.limit() && n < 10_000; n++) {
          int count = Short.toUnsignedInt(verneed.getShort(at + 2));
          String needsFile = string(verneedStr, Integer.toUnsignedLong(verneed.getInt(at + 4)));
          int aux = at + verneed.getInt(at + 8);
          for (int k = 0; k < count && aux >= 0 && aux + 16 <= verneed.limit(); k++) {
            needs.put(Short.toUnsignedInt(verneed.getShort(aux + 6)) & 0x7fff,
                new String[] {string(verneedStr, Integer.toUnsignedLong(verneed.getInt(aux + 8))), needsFile});
            int next = verneed.getInt(aux + 12);
            if (next == 0) {
              break;
            }
            aux += next;
          }
          int next = verneed.getInt(at + 12);
          if (next == 0) {
            break;
          }
          at += next;
        }
      }
      return Optional.of(new SharedObject(file, soname, List.copyOf(needed), dynsym, dynstr, gnuHash, versym, needs));
    }
  }

  private static ByteBuffer linked(FileChannel ch, ByteBuffer sh, int at) throws IOException {
    long offset = sh.getLong(at + 0x18);
    long size = sh.getLong(at + 0x20);
    if (offset < 0 || size < 0 || offset + size > ch.size()) {
      throw new IOException("a section's string table lies outside the file");
    }
    return section(ch, offset, size);
  }

  private static ByteBuffer section(FileChannel ch, long offset, long size) throws IOException {
    if (size > Integer.MAX_VALUE) {
      throw new IOException("a section of " + size + " bytes");
    }
    return ch.map(FileChannel.MapMode.READ_ONLY, offset, size).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static String string(ByteBuffer table, long offset) {
    if (table == null || offset < 0 || offset >= table.limit()) {
      return "";
    }
    int end = (int) offset;
    while (end < table.limit() && table.get(end) != 0) {
      end++;
    }
    byte[] b = new byte[end - (int) offset];
    table.get((int) offset, b);
    return new String(b, StandardCharsets.UTF_8);
  }

  Path path() {
    return path;
  }

  /** Its {@code DT_SONAME}, or null. */
  String soname() {
    return soname;
  }

  /** Its {@code DT_NEEDED} entries, in order. */
  List<String> needed() {
    return needed;
  }

  /** Its undefined symbols that the loader must resolve (global, not weak), in symbol-table order. */
  List<Undefined> undefined() {
    List<Undefined> out = new ArrayList<>();
    int count = dynsym.limit() / 24;
    for (int i = 1; i < count; i++) {
      int at = i * 24;
      int bind = (dynsym.get(at + 4) & 0xff) >> 4;
      if (dynsym.getShort(at + 6) != 0 || bind == STB_WEAK || bind == 0) {
        continue;
      }
      String[] version = versym == null || 2 * i + 2 > versym.limit() ? null
          : versionNeeds.get(Short.toUnsignedInt(versym.getShort(2 * i)) & 0x7fff);
      out.add(new Undefined(string(dynstr, Integer.toUnsignedLong(dynsym.getInt(at))),
          version == null ? null : version[0], version == null ? null : version[1]));
    }
    return out;
  }

  /** Whether it asks the loader for {@code prefix}-named symbols, or defines and exports one (any version). */
  boolean mentions(String prefix) {
    byte[] wanted = prefix.getBytes(StandardCharsets.UTF_8);
    for (int i = 1; i < dynsym.limit() / 24; i++) {
      long at = Integer.toUnsignedLong(dynsym.getInt(i * 24));
      if (at + wanted.length < dynstr.limit() && startsWith((int) at, wanted)) {
        return true;
      }
    }
    return false;
  }

  private boolean startsWith(int at, byte[] wanted) {
    for (int k = 0; k < wanted.length; k++) {
      if (dynstr.get(at + k) != wanted[k]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The values ({@code st_value}, the address relative to where the library is loaded) of the symbols in
   * {@code file}'s full symbol table ({@code .symtab}, local symbols included) that {@code names} names; a
   * stripped library has none.
   */
  static Map<String, Long> symtab(Path file, java.util.Set<String> names) throws IOException {
    Map<String, Long> found = new HashMap<>();
    symbols(file, names::contains, names.size()).forEach((name, at) -> found.put(name, at[0]));
    return found;
  }

  /**
   * The defined symbols of {@code file}'s full symbol table whose name {@code wanted} takes, by name: each its value
   * (relative to the load address) and size; at most {@code most} of them.
   */
  static Map<String, long[]> symbols(Path file, java.util.function.Predicate<String> wanted, int most) throws IOException {
    Map<String, long[]> found = new java.util.TreeMap<>();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer h = section(ch, 0, Math.min(64, ch.size()));
      if (h.limit() < 64 || h.getInt(0) != 0x464c457f || h.get(4) != 2 || h.get(5) != 1) {
        return found;
      }
      long shoff = h.getLong(0x28);
      int shentsize = Short.toUnsignedInt(h.getShort(0x3a));
      int shnum = Short.toUnsignedInt(h.getShort(0x3c));
      if (shoff <= 0 || shentsize < 64 || shoff + (long) shnum * shentsize > ch.size()) {
        return found;
      }
      ByteBuffer sh = section(ch, shoff, (long) shnum * shentsize);
      for (int i = 0; i < shnum; i++) {
        int at = i * shentsize;
        int link = sh.getInt(at + 0x28);
        if (sh.getInt(at + 4) != SHT_SYMTAB || link >= shnum) {
          continue;
        }
        long offset = sh.getLong(at + 0x18);
        long size = sh.getLong(at + 0x20);
        if (offset < 0 || size < 0 || offset + size > ch.size()) {
          return found;
        }
        ByteBuffer symtab = section(ch, offset, size);
        ByteBuffer strtab = linked(ch, sh, link * shentsize);
        for (int k = 1; k < symtab.limit() / 24 && found.size() < most; k++) {
          String name = string(strtab, Integer.toUnsignedLong(symtab.getInt(k * 24)));
          if (wanted.test(name) && symtab.getShort(k * 24 + 6) != 0) {
            found.put(name, new long[] {symtab.getLong(k * 24 + 8), symtab.getLong(k * 24 + 16)});
          }
        }
      }
    }
    return found;
  }

  /** Whether it defines and exports {@code name} (any version). */
  boolean defines(String name) {
    if (gnuHash == null || gnuHash.limit() < 16) {
      return definesByScan(name);
    }
    // the GNU hash table: nbuckets, symoffset, bloom size, bloom shift, bloom words, buckets, chains
    int nbuckets = gnuHash.getInt(0);
    int symoffset = gnuHash.getInt(4);
    int bloomSize = gnuHash.getInt(8);
    int buckets = 16 + 8 * bloomSize;
    int chains = buckets + 4 * nbuckets;
    if (nbuckets <= 0 || bloomSize < 0 || chains > gnuHash.limit()) {
      return definesByScan(name);
    }
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    int hash = 5381;
    for (byte b : wanted) {
      hash = hash * 33 + (b & 0xff);
    }
    int symbol = gnuHash.getInt(buckets + 4 * Integer.remainderUnsigned(hash, nbuckets));
    if (symbol < symoffset || symbol == 0) {
      return false;
    }
    for (; chains + 4L * (symbol - symoffset) + 4 <= gnuHash.limit() && 24L * symbol + 24 <= dynsym.limit(); symbol++) {
      int h = gnuHash.getInt(chains + 4 * (symbol - symoffset));
      if ((h | 1) == (hash | 1) && isDefined(symbol) && nameIs(symbol, wanted)) {
        return true;
      }
      if ((h & 1) != 0) {
        return false;
      }
    }
    return false;
  }

  private boolean definesByScan(String name) {
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    for (int i = 1; i < dynsym.limit() / 24; i++) {
      if (isDefined(i) && nameIs(i, wanted)) {
        return true;
      }
    }
    return false;
  }

  private boolean isDefined(int symbol) {
    return dynsym.getShort(symbol * 24 + 6) != 0;
  }

  private boolean nameIs(int symbol, byte[] wanted) {
    long at = Integer.toUnsignedLong(dynsym.getInt(symbol * 24));
    if (at + wanted.length >= dynstr.limit()) {
      return false;
    }
    for (int k = 0; k < wanted.length; k++) {
      if (dynstr.get((int) at + k) != wanted[k]) {
        return false;
      }
    }
    return dynstr.get((int) at + wanted.length) == 0;
  }
}
