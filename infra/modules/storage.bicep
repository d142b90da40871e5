// The function app's own storage account: host state (timer schedule status, locks), the
// deployment package container, the renewal ledger table, the run and recheck queues, and the
// dead-letter container of the Key Vault events. Shared keys are off: everything
// reaches it through the managed identity.

@description('Name of the storage account (3-24 lowercase letters and digits, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the storage account.')
param location string

@description('Tags applied to the storage account.')
param tags object = {}

@description('Blob container that holds the deployment package of the Flex Consumption app.')
param deploymentContainerName string

@description('Table of the renewal ledger; must match LEDGER_TABLE in shared/adapters/storage/tableLedger.ts.')
param ledgerTableName string

@description('Queue of the runs POST /api/renewals starts; must match RUN_QUEUE in shared/core/runs/run.ts and the queue trigger in functions/runQueuedRenewals.ts.')
param runQueueName string

@description('Queue of the rechecks of a new vault certificate version\'s consumers; must match RECHECK_QUEUE in shared/core/ports/vaultEvents.ts and the queue trigger in functions/recheckVaultConsumers.ts.')
param recheckQueueName string

@description('Blob container where Event Grid dead-letters the Key Vault events it could not deliver.')
param deadLetterContainerName string

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Key Vault events Event Grid could not deliver to the keyVaultEvents function after its retries
// (vaultEventSubscription.bicep): one blob per event, written with the system topic's identity.
resource deadLetterContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deadLetterContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// Created here so the app's identity needs no table-create right on first run.
resource ledgerTable 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = {
  parent: tableService
  name: ledgerTableName
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// The runs POST /api/renewals queues; the queue trigger sweeps them (docs/runs.md).
resource runQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: runQueueName
}

// Where the host moves a run message after host.json's maxDequeueCount failed deliveries (its
// naming rule: the queue's name plus -poison). Created here so the poison function's trigger
// has a queue to listen on before the first message is poisoned.
resource runPoisonQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: '${runQueueName}-poison'
}

// The rechecks of a new vault certificate version's consumers (functions/recheckVaultConsumers.ts),
// each sent with a visibility delay. Created here so the trigger has a queue to listen on.
resource recheckQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: recheckQueueName
}

output name string = storage.name
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output tableEndpoint string = storage.properties.primaryEndpoints.table
output queueEndpoint string = storage.properties.primaryEndpoints.queue
output deploymentContainerName string = deploymentContainer.name
output deadLetterContainerName string = deadLetterContainer.name
