#!/bin/sh
# azd's postdeploy hook (azure.yaml): Event Grid subscribes a function only once it exists, and
# the first `azd up` deploys the code after provisioning. So, when vaults are watched for Key
# Vault events (AZURE_EVENT_VAULTS) and their subscriptions are still held back
# (AZURE_KEY_VAULT_EVENTS_DEPLOYED is not true), mark the code deployed and provision once more:
# the subscriptions are created then, and every later `azd up` keeps them in its one provision.
set -eu
vaults=$(azd env get-value AZURE_EVENT_VAULTS 2>/dev/null || true)
deployed=$(azd env get-value AZURE_KEY_VAULT_EVENTS_DEPLOYED 2>/dev/null || true)
case "$(printf '%s' "$vaults" | tr -d '[:space:]')" in
  "" | "[]") echo "certsched: no vault watched for Key Vault events (AZURE_EVENT_VAULTS)"; exit 0 ;;
esac
if [ "$deployed" = "true" ]; then
  echo "certsched: Key Vault event subscriptions are in place"
  exit 0
fi
echo "certsched: the code is deployed; provisioning again to subscribe keyVaultEvents to the watched vaults"
azd env set AZURE_KEY_VAULT_EVENTS_DEPLOYED true
azd provision --no-prompt
