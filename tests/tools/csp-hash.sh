#!/bin/sh
# Trunk post-build hook: replace the CSP placeholder 'trunk-loader' in script-src with the SHA-256
# of the inline module script Trunk injected (its only inline script). Fails the build if there is
# not exactly one, so a policy never ships that blocks the app or allows more than it.
set -eu
html="${TRUNK_STAGING_DIR:?run by trunk}/index.html"
perl -0777 -i -pe '
  use Digest::SHA qw(sha256_base64);
  my @s = m{<script type="module">(.*?)</script>}sg;
  die "csp-hash: expected one inline script, found ".scalar(@s)."\n" unless @s == 1;
  my $h = sha256_base64($s[0]); $h .= "=" x ((4 - length($h) % 4) % 4);
  s/'"'"'trunk-loader'"'"'/'"'"'sha256-$h'"'"'/ or die "csp-hash: no '"'"'trunk-loader'"'"' placeholder in the policy\n";
' "$html"
