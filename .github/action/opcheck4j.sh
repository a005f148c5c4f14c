#!/usr/bin/env bash
# Step "opcheck4j" of action.yml: puts the opcheck4j harness on this runner without building it.
# OPCHECK4J_VERSION (the action's opcheck4j-version input) names a release on Maven Central: Maven
# resolves dev.opcheck4j:opcheck4j-harness and its dependencies (libtorch's JavaCPP presets among them)
# through the runner's own settings into ~/.m2, and the class path is written to
# $RUNNER_TEMP/opcheck4j/classpath.txt. Empty: the version of the action's ref when that is a release
# tag (v0.2.0 -> 0.2.0). "source": the fallback for an unreleased opcheck4j, `mvn install` of the
# action's own checkout (minutes; docs/ci.md).
# OPCHECK4J_MAVEN_ARGS: more arguments for Maven (a test passes -o and its private repository).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work="${RUNNER_TEMP:?RUNNER_TEMP is set by the runner}/opcheck4j"
mkdir -p "$work"
version="${OPCHECK4J_VERSION:-}"
if [ -z "$version" ]; then
  ref="${GITHUB_ACTION_REF:-}"
  if [[ "$ref" =~ ^v?([0-9]+\.[0-9]+\.[0-9]+.*)$ ]]; then
    version="${BASH_REMATCH[1]}"
  else
    echo "::error title=opcheck4j::set the action's opcheck4j-version input: its ref '${ref:-(none)}' is not a release tag (or use opcheck4j-version: source to build it)"
    exit 1
  fi
fi
# shellcheck disable=SC2086
maven=(mvn -B -q ${OPCHECK4J_MAVEN_ARGS:-})
if [ "$version" = source ]; then
  echo "opcheck4j: building the action's checkout ($root) with mvn install"
  (cd "$root" && "${maven[@]}" install -DskipTests)
  version=$(cd "$root" && "${maven[@]}" help:evaluate -Dexpression=project.version -DforceStdout)
fi
cat > "$work/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.opcheck4j.action</groupId>
  <artifactId>opcheck4j-action-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>dev.opcheck4j</groupId><artifactId>opcheck4j-harness</artifactId><version>$version</version></dependency>
  </dependencies>
  <build><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version>
  </plugin></plugins></build>
</project>
POM
"${maven[@]}" -f "$work/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt" -Dmdep.includeScope=runtime
echo "opcheck4j: opcheck4j-harness $version resolved ($(tr ':' '\n' < "$work/classpath.txt" | wc -l) jars)"
echo "OPCHECK4J_CLASSPATH=$work/classpath.txt" >> "${GITHUB_ENV:?GITHUB_ENV is set by the runner}"
