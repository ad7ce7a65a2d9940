# shellcheck shell=bash
# cert_manager_chart MODULE_DIR VERSION OUT CRD_CONDITION: cert-manager's Helm chart into OUT as its
# release makes it from the module's sources (make/manifests.mk of v1.11): Chart.yaml is
# deploy/charts/cert-manager/Chart.template.yaml with two lines substituted, `version:` and
# `appVersion:` set to VERSION (nothing else: the template's artifacthub.io annotations stay as
# written), and unless the chart has CRD templates of its own, the CRDs of deploy/crds/crd-*.yaml,
# joined by `---`, become templates/crds.yaml between `{{- if CRD_CONDITION }}` and `{{- end }}`.
# Returns 1 with the reason on stderr when the module lacks the template or the CRDs. Sourced by
# scripts/local-vm/build-cert-manager (the stand-in's static manifest) and scripts/local-charts/build
# (the chart mirror's package).
cert_manager_chart() {
  local moddir="$1" version="$2" out="$3" condition="$4" dir=deploy/charts/cert-manager crds crd first=1
  [ -f "$moddir/$dir/Chart.template.yaml" ] || { echo "no $dir/Chart.template.yaml in the module" >&2; return 1; }
  cp -r "$moddir/$dir" "$out"
  chmod -R u+w "$out"
  sed -e "s/^version: .*/version: $version/" -e "s/^appVersion: .*/appVersion: $version/" "$out/Chart.template.yaml" > "$out/Chart.yaml"
  rm "$out/Chart.template.yaml"
  compgen -G "$out/templates/crd*.yaml" >/dev/null && return 0
  crds=("$moddir"/deploy/crds/crd-*.yaml)
  [ -f "${crds[0]}" ] || { echo "no deploy/crds/crd-*.yaml in the module" >&2; return 1; }
  {
    echo "{{- if $condition }}"
    for crd in "${crds[@]}"; do
      [ "$first" = 1 ] || echo '---'
      first=0
      cat "$crd"
    done
    echo '{{- end }}'
  } > "$out/templates/crds.yaml"
}
