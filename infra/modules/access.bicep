// Role assignments of the app's identity: only roles the app uses today, each on the one
// resource it needs and nothing wider, each with the reason next to it. Names are
// guid(scope, principal, role) so a redeployment finds the same assignment.


@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

@description('Name of the Key Vault holding the two secrets.')
param keyVaultName string

@description('Name of the function app\'s storage account.')
param storageAccountName string

@description('Name of the Application Insights component.')
param appInsightsName string

@description('Object id of the person or pipeline running the deployment (azd fills in AZURE_PRINCIPAL_ID); gets Key Vault Secrets Officer so it can set the two secrets. Empty: no assignment.')
param deployerPrincipalId string = ''

// Built-in role definition ids (the same in every subscription).
var roles = {
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// Reads the API key and client secret at run time (shared/adapters/identity/secretClientReader.ts).
resource vaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, principalId, roles.keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Host storage through the identity (AzureWebJobsStorage__*: timer schedule status, locks,
// host keys) and the Flex Consumption deployment package (functionAppConfig.deployment, a blob
// container). Owner, not Contributor: the host creates its containers.
resource storageBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, principalId, roles.storageBlobDataOwner)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageBlobDataOwner)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// The renewal ledger: reads and writes entities of the ledger table (shared/adapters/storage/tableLedger.ts,
// CERTSCHED_LEDGER_TABLE_URI). The table itself is created by storage.bicep.
resource storageTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, principalId, roles.storageTableDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageTableDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// The run queues (docs/runs.md), identity-based like everything else on the account (shared keys
// are off): POST /api/renewals sends to certsched-runs (shared/adapters/queue/storageRunQueue.ts,
// CERTSCHED_QUEUE_URI); the host's queue triggers (AzureWebJobsStorage__*) read and delete
// messages there, and move the ones that keep failing to certsched-runs-poison. Contributor,
// not Message Sender/Processor alone: the app does both, and the host also updates a message's
// visibility on a failed delivery.
resource storageQueueDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, principalId, roles.storageQueueDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageQueueDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Sends telemetry with the identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING), which keeps
// working when local (key) authentication is turned off on Application Insights.
resource metricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, principalId, roles.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Lets whoever deploys set the secrets with `az keyvault secret set`: in RBAC mode owning the
// resource group does not grant access to secret values.
resource deployerSecretsOfficer 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(vault.id, deployerPrincipalId, roles.keyVaultSecretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsOfficer)
    principalId: deployerPrincipalId
  }
}
