package io.sluice.agent;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Reads what tests need from a class file's constant pool. */
public final class ClassFiles {
  private ClassFiles() {}

  /** The tags of the constant pool entries (15 method handle, 18 invokedynamic, ...). */
  public static Set<Integer> constantTags(byte[] bytes) throws IOException {
    Set<Integer> tags = new HashSet<>();
    read(bytes, tags, new ArrayList<>(), new ArrayList<>());
    return tags;
  }

  /** The internal names of the classes the class file refers to ({@code java/lang/String}). */
  public static Set<String> referencedClasses(byte[] bytes) throws IOException {
    List<String> utf8 = new ArrayList<>();
    List<Integer> classNameIndexes = new ArrayList<>();
    read(bytes, new HashSet<>(), utf8, classNameIndexes);
    Set<String> names = new HashSet<>();
    for (int index : classNameIndexes) {
      String name = utf8.get(index);
      // Array classes: the element type, if it is a class.
      int element = name.lastIndexOf('[');
      if (element >= 0) {
        if (name.charAt(element + 1) != 'L') {
          continue;
        }
        name = name.substring(element + 2, name.length() - 1);
      }
      names.add(name);
    }
    return names;
  }

  private static void read(
      byte[] bytes, Set<Integer> tags, List<String> utf8, List<Integer> classNameIndexes)
      throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    in.readInt(); // magic
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    utf8.add(null); // entries are numbered from 1
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      tags.add(tag);
      String text = null;
      switch (tag) {
        case 1 -> text = in.readUTF();
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          utf8.add(null);
          i++;
        }
        case 7 -> classNameIndexes.add(in.readUnsignedShort());
        case 8, 16, 19, 20 -> in.readUnsignedShort();
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        default -> throw new IOException("unknown constant tag " + tag);
      }
      utf8.add(text);
    }
  }
}
