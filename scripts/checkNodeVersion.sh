#!/bin/sh
# azd's preprovision hook (azure.yaml): refuse a Node version the function app cannot run on
# before anything is provisioned. main.bicep's @allowed refuses it too, but only once Azure
# validates the deployment, and naming the parameter nodeVersion, not the azd variable to change.
# azd runs hooks with the environment's values (.azure/<env>/.env) as variables: the same
# AZURE_FUNCTION_NODE_VERSION it substitutes into main.parameters.json, where unset means 24.
# Keep the versions here and main.bicep's @allowed the same (test/infra/nodeVersion.test.ts).
set -eu
version=${AZURE_FUNCTION_NODE_VERSION-24}
case "$version" in
  24 | 22)
    echo "certsched: the function app runs on Node $version (AZURE_FUNCTION_NODE_VERSION)"
    exit 0
    ;;
  20) reason="Node 20 is no longer supported by Azure Functions (end of support 2026-04-30)" ;;
  *) reason="not a Node version certsched runs on" ;;
esac
echo "certsched: AZURE_FUNCTION_NODE_VERSION=$version: $reason; use 24 (the default) or 22, e.g. azd env set AZURE_FUNCTION_NODE_VERSION 24" >&2
exit 1
