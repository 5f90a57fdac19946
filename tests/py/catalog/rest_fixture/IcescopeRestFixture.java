// Launcher for Apache Iceberg's REST catalog reference server (org.apache.iceberg.rest.RESTCatalogServer
// from org.apache.iceberg:iceberg-open-api:<version>:test-fixtures), bound to one address only.
//
// Why not RESTCatalogServer.main: its start() does `new org.eclipse.jetty.server.Server(port)`, which
// listens on every interface (0.0.0.0 and ::) and has no host setting, neither a property nor an
// environment variable. This launcher builds the backend catalog with the server's own private
// initializeBackendCatalog() (so every CATALOG_* environment variable means what it means upstream),
// then assembles the same handler chain as start() (RESTServerCatalogAdapter -> RESTCatalogServlet
// -> ServletContextHandler with gzip compression), but on a ServerConnector with an explicit host.
//
//   java -cp 'LIB/*:CLASSES' org.apache.iceberg.rest.IcescopeRestFixture HOST PORT PORT_FILE
//
// PORT 0 takes a free port from the OS; the port actually bound is written to PORT_FILE (written
// to a temp name and renamed, so a reader never sees half of it) once the server accepts requests.
// SIGTERM stops Jetty through a shutdown hook.
//
// Compiled by tests/py/catalog/fetch_rest_fixture.sh into tests/.cache/rest-fixture/classes. It sits
// in the server's package because RESTCatalogServer's constructor, its CatalogContext and the
// RESTServerCatalogAdapter constructor are package-private.
package org.apache.iceberg.rest;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import org.eclipse.jetty.compression.gzip.GzipCompression;
import org.eclipse.jetty.compression.server.CompressionHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class IcescopeRestFixture {
  private IcescopeRestFixture() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: IcescopeRestFixture HOST PORT PORT_FILE");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    Path portFile = Paths.get(args[2]);

    // The upstream configuration logic, unchanged: CATALOG_* env vars, JdbcCatalog on sqlite by
    // default, a temp warehouse if none is set.
    RESTCatalogServer upstream = new RESTCatalogServer(new HashMap<>());
    Method init = RESTCatalogServer.class.getDeclaredMethod("initializeBackendCatalog");
    init.setAccessible(true);
    RESTCatalogServer.CatalogContext context = (RESTCatalogServer.CatalogContext) init.invoke(upstream);

    RESTCatalogAdapter adapter = new RESTServerCatalogAdapter(context);
    RESTCatalogServlet servlet = new RESTCatalogServlet(adapter);
    ServletContextHandler handler = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    handler.addServlet(new ServletHolder(servlet), "/*");
    CompressionHandler compression = new CompressionHandler();
    compression.putCompression(new GzipCompression());
    handler.insertHandler(compression);

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(handler);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.stop();
                    if (context.catalog() instanceof AutoCloseable) {
                      ((AutoCloseable) context.catalog()).close();
                    }
                  } catch (Exception e) {
                    // the JVM is exiting anyway
                  }
                }));
    server.start();

    Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    Files.write(tmp, String.valueOf(connector.getLocalPort()).getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
    System.err.println("icescope-rest-fixture: listening on " + host + ":" + connector.getLocalPort());
    server.join();
  }
}
