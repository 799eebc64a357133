// IsthmusTPCH turns SQL queries into Substrait plans with Isthmus
// (io.substrait:isthmus, Calcite-based), for rigel's producer conformance
// test. Usage: IsthmusTPCH SCHEMA.sql OUTDIR QUERY.sql...
// For each QUERY qNN.sql it writes OUTDIR/qNN.pb (the plan, binary protobuf)
// or OUTDIR/qNN.err (why Isthmus could not convert it): a query Isthmus
// refuses is a fact to report, not a reason to stop the others.
import io.substrait.isthmus.SqlToSubstrait;
import io.substrait.isthmus.sql.SubstraitCreateStatementParser;
import io.substrait.plan.PlanProtoConverter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.prepare.Prepare;

public class IsthmusTPCH {
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: IsthmusTPCH SCHEMA.sql OUTDIR QUERY.sql...");
      System.exit(2);
    }
    // Calcite's parser takes one CREATE TABLE per string and no trailing ';'.
    List<String> creates = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      String t = line.strip();
      if (t.startsWith("--") || t.isEmpty()) {
        continue;
      }
      cur.append(line).append('\n');
      if (t.endsWith(";")) {
        String s = cur.toString().strip();
        creates.add(s.substring(0, s.length() - 1));
        cur.setLength(0);
      }
    }
    Prepare.CatalogReader catalog = SubstraitCreateStatementParser.processCreateStatementsToCatalog(creates);
    Path out = Path.of(args[1]);
    Files.createDirectories(out);
    for (int i = 2; i < args.length; i++) {
      Path q = Path.of(args[i]);
      String name = q.getFileName().toString().replaceFirst("\\.sql$", "");
      String sql = Files.readString(q, StandardCharsets.UTF_8).strip();
      if (sql.endsWith(";")) {
        sql = sql.substring(0, sql.length() - 1);
      }
      try {
        io.substrait.plan.Plan plan = new SqlToSubstrait().convert(sql, catalog);
        byte[] bytes = new PlanProtoConverter().toProto(plan).toByteArray();
        Files.write(out.resolve(name + ".pb"), bytes);
      } catch (Throwable e) {
        String msg = e.toString().split("\n", 2)[0];
        Files.writeString(out.resolve(name + ".err"), msg + "\n", StandardCharsets.UTF_8);
      }
    }
  }
}
