// What labkit asks of an HBase cluster that its Thrift 1 gateway cannot answer: the servers' version, a table
// pre-split at given keys, and the master's view of every region server's and region's request counts.
// labkit compiles it once against the cached HBase jars (hbase_install.admin_classes) and runs it per call.
// Prints one JSON object on stdout.

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
      System.err.println("usage: LabkitHBaseAdmin ZOOKEEPER_ADDRESS:PORT version|metrics|create TABLE FAMILY [SPLIT_KEY...]");
      System.exit(2);
    }
    String[] quorum = args[0].split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", quorum[0]);
    conf.set("hbase.zookeeper.property.clientPort", quorum.length > 1 ? quorum[1] : "2181");
    conf.setInt("hbase.client.retries.number", 10);
    try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
      switch (args[1]) {
        case "version": {
          ClusterMetrics m = admin.getClusterMetrics();
          System.out.println("{\"version\": " + quote(m.getHBaseVersion()) + ", \"servers\": " + m.getLiveServerMetrics().size() + "}");
          break;
        }
        case "metrics":
          System.out.println(metrics(admin.getClusterMetrics()));
          break;
        case "create": {
          List<byte[]> splits = new ArrayList<>();
          for (int i = 4; i < args.length; i++) splits.add(Bytes.toBytes(args[i]));
          TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(TableName.valueOf(args[2]))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(args[3])).setMaxVersions(1).build());
          if (splits.isEmpty()) admin.createTable(table.build());
          else admin.createTable(table.build(), splits.toArray(new byte[0][]));
          System.out.println("{\"created\": " + quote(args[2]) + ", \"regions\": " + (splits.size() + 1) + "}");
          break;
        }
        default:
          System.err.println("unknown command " + args[1]);
          System.exit(2);
      }
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
