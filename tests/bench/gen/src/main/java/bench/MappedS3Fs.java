package bench;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * `s3://BUCKET/KEY` kept on the local disk at `ROOT/KEY`, so the Iceberg API writes a table whose
 * every path (metadata.json, manifest lists, manifests, data files) is the `s3://` one an object
 * store serves it under, as fast as the local filesystem; the folder is then put on the store byte
 * for byte. Nothing Iceberg writes is edited afterwards.
 */
public class MappedS3Fs extends LocalFs {
  static final String ROOT = "bench.s3.root";
  private URI uri;
  private File root;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    this.uri = URI.create(name.getScheme() + "://" + name.getAuthority() + "/");
    this.root = new File(conf.get(ROOT));
    setWorkingDirectory(new Path(uri));
  }

  @Override
  public URI getUri() {
    // Asked by the superclass's constructor, before initialize names the bucket.
    return uri != null ? uri : URI.create("s3:///");
  }

  @Override
  public String getScheme() {
    return "s3";
  }

  @Override
  public File pathToFile(Path path) {
    checkPath(path);
    return new File(root, path.toUri().getPath());
  }
}
