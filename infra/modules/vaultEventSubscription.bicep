// The event subscription of one vault's system topic to the keyVaultEvents function, deployed into
// the vault's resource group. Endpoint type AzureFunction (the Event Grid trigger), as Azure's
// "Azure Function as an event handler for Event Grid events" recommends: Event Grid fetches the
// trigger's key itself and validates the endpoint, so no key travels through the template.
// Event Grid refuses a subscription to a function that does not exist yet: main.bicep creates this
// only once the app's code is deployed (keyVaultEventsDeployed; infra/README.md).

@description('Name of the vault\'s system topic (vaultEventTopic.bicep).')
param topicName string

@description('Name of the event subscription, one per certsched deployment: two deployments may watch one vault through its one system topic.')
@minLength(3)
@maxLength(64)
param subscriptionName string

@description('Resource id of the function app.')
param functionAppId string

@description('Name of the Event Grid trigger function, as functions/keyVaultEvents.ts registers it.')
param functionName string

@description('Resource id of the app\'s storage account, which holds the dead-letter container.')
param storageAccountId string

@description('Blob container that receives the events Event Grid could not deliver.')
param deadLetterContainerName string

@description('Delivery attempts of one event before it is dead-lettered, 1..30.')
@minValue(1)
@maxValue(30)
param maxDeliveryAttempts int = 30

@description('Minutes Event Grid keeps retrying one event before it is dead-lettered, 1..1440.')
@minValue(1)
@maxValue(1440)
param eventTimeToLiveInMinutes int = 1440

resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' existing = {
  name: topicName
}

resource subscription 'Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15' = {
  parent: topic
  name: subscriptionName
  properties: {
    destination: {
      endpointType: 'AzureFunction'
      properties: {
        resourceId: '${functionAppId}/functions/${functionName}'
        maxEventsPerBatch: 1
        preferredBatchSizeInKilobytes: 64
      }
    }
    // The trigger reads both schemas; Key Vault's own is the Event Grid schema.
    eventDeliverySchema: 'EventGridSchema'
    // Must match VAULT_EVENT_TYPES in shared/core/vaultEvents/vaultEvent.ts (test/infra checks it).
    filter: {
      includedEventTypes: [
        'Microsoft.KeyVault.CertificateNewVersionCreated'
        'Microsoft.KeyVault.CertificateNearExpiry'
        'Microsoft.KeyVault.CertificateExpired'
      ]
    }
    retryPolicy: {
      maxDeliveryAttempts: maxDeliveryAttempts
      eventTimeToLiveInMinutes: eventTimeToLiveInMinutes
    }
    // Written with the topic's own identity (Storage Blob Data Contributor on the container,
    // vaultEventDeadLetter.bicep); infra/README.md says where they land and how to replay one.
    deadLetterWithResourceIdentity: {
      identity: {
        type: 'SystemAssigned'
      }
      deadLetterDestination: {
        endpointType: 'StorageBlob'
        properties: {
          resourceId: storageAccountId
          blobContainerName: deadLetterContainerName
        }
      }
    }
  }
}

output name string = subscription.name
