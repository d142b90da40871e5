// The one role a vault's system topic needs, in the app's resource group: write the events it
// could not deliver to the dead-letter container of the app's storage account. Scoped to that
// container, not the account: the topic reads and writes nothing else.

@description('Principal (object) id of the system topic\'s system-assigned identity.')
param topicPrincipalId string

@description('Resource id of the vault the topic belongs to (names the assignment).')
param vaultId string

@description('Name of the function app\'s storage account.')
param storageAccountName string

@description('Blob container that receives dead-lettered events.')
param deadLetterContainerName string

// Built-in role definition ids (the same in every subscription).
var roles = {
  storageBlobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: storage
  name: 'default'
}

resource container 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  parent: blobService
  name: deadLetterContainerName
}

// Event Grid writes a dead-lettered event as a blob with the topic's identity
// (deadLetterWithResourceIdentity): Contributor, the least blob data role that can write.
resource deadLetterWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(container.id, vaultId, roles.storageBlobDataContributor)
  scope: container
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageBlobDataContributor)
    principalId: topicPrincipalId
    principalType: 'ServicePrincipal'
  }
}
