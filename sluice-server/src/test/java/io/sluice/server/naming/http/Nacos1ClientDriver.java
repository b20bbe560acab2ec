package io.sluice.server.naming.http;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.pojo.Instance;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Runs in a child JVM whose class path holds only the Nacos 1.x client (it is compiled against the
 * 2.x API, whose naming methods used here are the same). Reads commands from standard input, one a
 * line, and answers each with one line: {@code register <service> <ip> <port>}, {@code list
 * <service>}, {@code deregister <service> <ip> <port>}, {@code quit}.
 */
public final class Nacos1ClientDriver {
  private Nacos1ClientDriver() {}

  public static void main(String[] args) throws Exception {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, args[0]);
    NamingService naming = NacosFactory.createNamingService(properties);
    System.out.println("READY");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split(" ");
      try {
        switch (words[0]) {
          case "register" -> {
            naming.registerInstance(words[1], words[2], Integer.parseInt(words[3]));
            System.out.println("OK");
          }
          case "deregister" -> {
            naming.deregisterInstance(words[1], words[2], Integer.parseInt(words[3]));
            System.out.println("OK");
          }
          case "list" -> {
            List<Instance> instances = naming.getAllInstances(words[1]);
            System.out.println(
                "OK "
                    + instances.stream()
                        .map(i -> i.getIp() + ":" + i.getPort() + ":" + i.isHealthy())
                        .sorted()
                        .collect(Collectors.joining(",")));
          }
          case "quit" -> {
            naming.shutDown();
            System.out.println("OK");
            return;
          }
          default -> System.out.println("ERROR unknown command " + words[0]);
        }
      } catch (Exception e) {
        System.out.println("ERROR " + e);
      }
      System.out.flush();
    }
  }
}
