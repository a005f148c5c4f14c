#!/usr/bin/env bash
# Step "summary" of action.yml (always). `check` itself appends opcheck-summary.md to
# $GITHUB_STEP_SUMMARY (the reports' Markdown format does, where the variable is set); this step says
# on the run's page when the check step ended before writing any report (bad input, a build that failed).
set -euo pipefail
summary="${OPCHECK_REPORT_DIR:-opcheck-report}/opcheck-summary.md"
if [ ! -f "$summary" ]; then
  printf '## opcheck4j: no report\n\nThe check step wrote no %s; its log says why.\n' "$summary" \
    >> "${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is set by the runner}"
fi
