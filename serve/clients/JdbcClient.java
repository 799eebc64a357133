// A Flight SQL JDBC client that rigel did not write (Apache Arrow's
// flight-sql-jdbc-driver), against a rigel server.
//
// usage: java --add-opens=java.base/java.nio=ALL-UNNAMED -cp flight-sql-jdbc-driver.jar \
//          JdbcClient.java JDBC_URL OUTDIR SQLFILE...
//
// For each SQL file it runs the query with a JDBC Statement and writes the
// rows to OUTDIR/NAME.jdbc.tsv: one line per row, values separated by tabs,
// NULL for nulls, decimals in plain notation, dates as yyyy-mm-dd. It also
// lists the tables through DatabaseMetaData into OUTDIR/tables.tsv.
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

public class JdbcClient {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path out = Path.of(args[1]);
        try (Connection conn = DriverManager.getConnection(url)) {
            for (int i = 2; i < args.length; i++) {
                Path sqlFile = Path.of(args[i]);
                String sql = Files.readString(sqlFile);
                List<String> lines = new ArrayList<>();
                try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int c = 1; c <= md.getColumnCount(); c++) {
                            if (c > 1) row.append('\t');
                            row.append(value(rs, md, c));
                        }
                        lines.add(row.toString());
                    }
                }
                Files.write(out.resolve(sqlFile.getFileName() + ".jdbc.tsv"), lines);
            }
            List<String> tables = new ArrayList<>();
            DatabaseMetaData meta = conn.getMetaData();
            try (ResultSet rs = meta.getTables(null, null, "%", null)) {
                while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
            }
            Files.write(out.resolve("tables.tsv"), tables);
        }
    }

    static String value(ResultSet rs, ResultSetMetaData md, int c) throws Exception {
        Object o = rs.getObject(c);
        if (o == null) return "NULL";
        switch (md.getColumnType(c)) {
            case Types.DECIMAL:
            case Types.NUMERIC:
                return ((BigDecimal) rs.getBigDecimal(c)).toPlainString();
            case Types.DATE:
                return rs.getDate(c).toLocalDate().toString();
            case Types.DOUBLE:
            case Types.FLOAT:
            case Types.REAL:
                return Double.toString(rs.getDouble(c));
            default:
                return rs.getString(c);
        }
    }
}
