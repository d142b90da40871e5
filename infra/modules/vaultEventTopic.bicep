// The Event Grid system topic of one watched Key Vault, deployed into the vault's resource group:
// Key Vault publishes its certificate events there (topic type Microsoft.KeyVault.vaults, in the
// vault's own region, as Azure requires of a system topic). The topic has a system-assigned
// identity so the event subscription can dead-letter with it (deadLetterWithResourceIdentity);
// vaultEventDeadLetter.bicep gives that identity its one role.

@description('Name of the watched Key Vault (in the resource group this module is deployed to).')
param vaultName string

@description('Name of the system topic. Azure allows one system topic per vault: give the existing one\'s name when the vault already has one.')
param topicName string

@description('Tags applied to the system topic.')
param tags object = {}

@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

@description('Grant the app\'s identity Key Vault Certificate User on the vault: true when the app reads vaults with its own identity (managed-identity cloud credential, or declared accounts, which may use it).')
param grantCertificateRead bool

// Built-in role definition ids (the same in every subscription).
var roles = {
  keyVaultCertificateUser: 'db79e9a7-68ee-4b58-9aeb-b90e7c24fcba'
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: vaultName
}

resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' = {
  name: topicName
  location: vault.location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    source: vault.id
    topicType: 'Microsoft.KeyVault.vaults'
  }
}

// The keyVaultEvents function never trusts an event's payload: it reads the version the event
// names from the vault (shared/adapters/probes/keyVaultProbe.ts, with the cloud credential). In
// managed-identity mode that credential is this identity, which then needs to read certificates
// here. In client-secret mode the app registration reads instead; grant it the same role
// (docs/verification.md).
resource certificateUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantCertificateRead) {
  name: guid(vault.id, principalId, roles.keyVaultCertificateUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultCertificateUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

output topicName string = topic.name
output topicPrincipalId string = topic.identity.principalId
