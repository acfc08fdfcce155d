// What labkit asks of an HBase cluster that its Thrift 1 gateway cannot answer: the servers' version, a table
// pre-split at given keys, and the master's view of every region server's and region's request counts.
// labkit compiles it once against the cached HBase jars (hbase_install.admin_classes). With a command it runs that
// one and prints one JSON object on stdout; with `serve` it keeps one connection and answers command lines read from
// stdin (fields separated by tabs), one JSON line each, until stdin closes: a JVM and a connection per call cost
// about two seconds, which a lesson's every count paid.

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class LabkitHBaseAdmin {
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: LabkitHBaseAdmin ZOOKEEPER_ADDRESS:PORT serve|version|metrics|create TABLE FAMILY [SPLIT_KEY...]");
      System.exit(2);
    }
    String[] quorum = args[0].split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", quorum[0]);
    conf.set("hbase.zookeeper.property.clientPort", quorum.length > 1 ? quorum[1] : "2181");
    conf.setInt("hbase.client.retries.number", 10);
    try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
      if (!args[1].equals("serve")) {
        String[] command = java.util.Arrays.copyOfRange(args, 1, args.length);
        try {
          System.out.println(answer(admin, command));
        } catch (IllegalArgumentException e) {
          System.err.println(e.getMessage());
          System.exit(2);
        }
        return;
      }
      java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, "UTF-8"));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isEmpty()) continue;
        String reply;
        try {
          reply = answer(admin, line.split("\t", -1));
        } catch (Exception e) {
          reply = "{\"error\": " + quote(e.getClass().getSimpleName() + ": " + e.getMessage()) + "}";
        }
        System.out.println(reply);
        System.out.flush();
      }
    }
  }

  // One command's JSON answer: version, metrics, create TABLE FAMILY [SPLIT_KEY...], or flush TABLE.
  static String answer(Admin admin, String[] command) throws java.io.IOException {
    switch (command[0]) {
      case "version": {
        ClusterMetrics m = admin.getClusterMetrics();
        return "{\"version\": " + quote(m.getHBaseVersion()) + ", \"servers\": " + m.getLiveServerMetrics().size() + "}";
      }
      case "metrics":
        return metrics(admin.getClusterMetrics());
      case "create": {
        if (command.length < 3) throw new IllegalArgumentException("usage: create TABLE FAMILY [SPLIT_KEY...]");
        List<byte[]> splits = new ArrayList<>();
        for (int i = 3; i < command.length; i++) splits.add(Bytes.toBytes(command[i]));
        TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(TableName.valueOf(command[1]))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(command[2])).setMaxVersions(1).build());
        if (splits.isEmpty()) admin.createTable(table.build());
        else admin.createTable(table.build(), splits.toArray(new byte[0][]));
        return "{\"created\": " + quote(command[1]) + ", \"regions\": " + (splits.size() + 1) + "}";
      }
      case "flush": {  // every region's memstore of the table written to store files (HFiles), so reads go through them
        if (command.length != 2) throw new IllegalArgumentException("usage: flush TABLE");
        admin.flush(TableName.valueOf(command[1]));
        return "{\"flushed\": " + quote(command[1]) + "}";
      }
      default:
        throw new IllegalArgumentException("unknown command " + command[0]);
    }
  }

  // Every live region server with its total requests and, per region, its table, start key and read/write counts.
  static String metrics(ClusterMetrics m) throws java.io.IOException {
    StringBuilder out = new StringBuilder("{\"servers\": [");
    boolean firstServer = true;
    for (Map.Entry<ServerName, ServerMetrics> e : m.getLiveServerMetrics().entrySet()) {
      ServerMetrics s = e.getValue();
      out.append(firstServer ? "" : ", ").append("{\"host\": ").append(quote(e.getKey().getHostname()))
         .append(", \"port\": ").append(e.getKey().getPort()).append(", \"requests\": ").append(s.getRequestCount())
         .append(", \"regions\": [");
      firstServer = false;
      boolean firstRegion = true;
      for (RegionMetrics r : s.getRegionMetrics().values()) {
        byte[] name = r.getRegionName();
        TableName table = RegionInfo.getTable(name);
        byte[] start = RegionInfo.getStartKey(name);
        out.append(firstRegion ? "" : ", ").append("{\"table\": ").append(quote(table.getNameAsString()))
           .append(", \"start_key\": ").append(quote(Bytes.toStringBinary(start)))
           .append(", \"reads\": ").append(r.getReadRequestCount()).append(", \"writes\": ").append(r.getWriteRequestCount())
           .append(", \"filtered_reads\": ").append(r.getFilteredReadRequestCount()).append("}");
        firstRegion = false;
      }
      out.append("]}");
    }
    return out.append("]}").toString();
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') q.append('\\').append(c);
      else if (c < 0x20) q.append(String.format("\\u%04x", (int) c));
      else q.append(c);
    }
    return q.append('"').toString();
  }
}
