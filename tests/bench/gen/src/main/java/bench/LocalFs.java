package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local filesystem without its native library forks `chmod` for every file and directory
 * it creates (~5 ms each here, which dominated writing ~50k Parquet files and manifests). This one
 * sets the same permissions with java.nio instead, and writes no .crc side files (it is the raw
 * local filesystem, not the checksummed one). Nothing else about the files changes.
 */
public class LocalFs extends RawLocalFileSystem {
  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    String rwx = new FsPermission((short) (permission.toShort() & 0777)).toString();
    Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixFilePermissions.fromString(rwx));
  }
}
