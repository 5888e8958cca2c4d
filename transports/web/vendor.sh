#!/usr/bin/env bash
# make web-vendor: fetches the page's libraries at the pinned versions
# from the npm registry (npm pack checks each tarball against the
# registry's integrity hash), copies the files the page loads into
# assets/vendor/, and checks them against vendor.sum, so that the
# committed files are exactly what these versions ship. VERIFY=0 rewrites
# vendor.sum (after a deliberate version bump).
set -euo pipefail
cd "$(dirname "$0")"
out=assets/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# package@version  files in its tarball (globs under package/)  folder
pins=(
	"marked@18.2.1|lib/marked.esm.js LICENSE|marked"
	"dompurify@3.5.0|dist/purify.es.mjs LICENSE|dompurify"
	"@highlightjs/cdn-assets@11.12.0|es/highlight.min.js styles/github.min.css styles/github-dark.min.css LICENSE|highlight"
	"diff@9.0.0|libesm LICENSE|diff"
)

rm -rf "$out"
mkdir -p "$out"
for pin in "${pins[@]}"; do
	IFS='|' read -r spec files dir <<<"$pin"
	(cd "$tmp" && npm pack --silent "$spec" >/dev/null)
	tgz=$(ls "$tmp"/*.tgz)
	mkdir -p "$tmp/x" "$out/$dir"
	tar -xzf "$tgz" -C "$tmp/x"
	for f in $files; do
		if [[ -d "$tmp/x/package/$f" ]]; then
			# a module tree: its JavaScript only (no typings, no maps)
			(cd "$tmp/x/package" && find "$f" -name '*.js' -print0 | tar --null -T - -cf -) | tar -xf - -C "$out/$dir"
		else
			cp "$tmp/x/package/$f" "$out/$dir/$(basename "$f")"
		fi
	done
	rm -rf "$tmp/x" "$tgz"
done
find "$out" -type f -exec chmod 0644 {} +
if [[ "${VERIFY:-1}" == 0 ]]; then
	(cd "$out" && find . -type f | LC_ALL=C sort | xargs sha256sum) >vendor.sum
	echo "wrote vendor.sum"
else
	(cd "$out" && sha256sum --quiet -c ../../vendor.sum)
	echo "vendored libraries match vendor.sum"
fi
